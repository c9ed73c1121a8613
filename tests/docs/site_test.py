"""The documentation site builds with `mkdocs build --strict` (what `make docs` runs): no broken
link or anchor, no page missing from the nav, and the generated API reference is there."""
import importlib.util
import logging

import pytest

from tests.conftest import ROOT
from tests.docs.markdown_commands import fenced_blocks

mkdocs = pytest.importorskip("mkdocs", reason="mkdocs is not installed (make install installs it)")


def load_api_docs():
    spec = importlib.util.spec_from_file_location("make_api_docs", ROOT / "scripts" / "make_api_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_builds_strictly(tmp_path, caplog):
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"), strict=True, site_dir=str(tmp_path / "site"))
    with caplog.at_level(logging.WARNING, logger="mkdocs"):
        build(config)  # raises Abort on any warning in strict mode
    assert not [r for r in caplog.records if r.name.startswith("mkdocs") and r.levelno >= logging.WARNING]
    site = tmp_path / "site"
    for page in ("index.html", "tour/index.html", "results/index.html", "results/robust_training/index.html",
                 "api/noise/index.html", "api/commands/index.html", "changelog/index.html", "models/index.html"):
        assert (site / page).exists(), page
    noise = (site / "api" / "noise" / "index.html").read_text(encoding="utf-8")
    assert "word_probability" in noise  # a `# Parameters` entry of the keyboard source
    models = (site / "models" / "index.html").read_text(encoding="utf-8")
    assert "bidaf-quickstart" in models and "<!-- models table -->" not in models  # the table was generated


def test_the_parameters_section_becomes_a_list():
    docs = load_api_docs()
    text = docs.docstring_markdown('''
    A source.

    # Parameters

    word_probability : `float`, optional (default = `0.25`)
        The probability that a word gets a typo.
    seed : `int`
    ''')
    assert "#### Parameters" in text
    assert "- **word_probability** : `float`, optional (default = `0.25`)" in text
    assert "    The probability that a word gets a typo." in text
    assert "- **seed** : `int`" in text


def test_every_registered_component_is_documented():
    from allennlp.common import Registrable

    docs = load_api_docs()
    pages = docs.pages()
    reference = "\n".join(text for path, text in pages.items() if path.startswith("api/"))
    documented_bases = {docs._import(base) for _, _, bases in docs.COMPONENT_PAGES.values() for base in bases}
    from allennlp.commands import Subcommand

    missing = []
    for base, registry in Registrable._registry.items():
        for name, (cls, _) in registry.items():
            if docs._own(cls) and base is not Subcommand:
                if base not in documented_bases or f"### `{name}`" not in reference:
                    missing.append(f"{base.__name__} {name!r} ({cls.__module__})")
    assert not missing, "registered but not in the API reference: " + ", ".join(missing)
    assert "## `allennlp noise`" in pages["api/commands.md"]


def test_the_readme_links_only_to_files_that_exist():
    import re

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" not in target:
            assert (ROOT / target).exists(), target


def test_the_readme_is_a_short_guide():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    from srcframework.pretrained import model_cards

    models = text[text.index("## Models"):text.index("## Results")]
    for model_id in model_cards():
        assert f"`{model_id}`" in models, f"the README's Models table misses {model_id}"
    assert any(block.language == "bibtex" for block in fenced_blocks(text))
