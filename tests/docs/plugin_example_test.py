"""The complete plugin of docs/plugins.md works as the page shows it: its files are written from the
page's code blocks, installed as a distribution (the `dist-info` that `pip install` would write,
from the page's own setup.py), loaded by the plugin manager, and used as a noise source."""
import importlib
import json
import sys

import pytest
import setuptools
from allennlp.common import Params

from srcframework.commands.list_plugins import format_table
from srcframework.common.errors import InputError
from srcframework.noise.noise_source import NoiseSource
from srcframework.plugins.manager import load_plugins, unload_plugins
from tests.conftest import ROOT
from tests.docs.markdown_commands import fenced_blocks

PAGE = ROOT / "docs" / "plugins.md"


def page_files() -> dict:
    """{path: source} of the page's Python blocks, each named by its first line (`# path`)."""
    files = {}
    for block in fenced_blocks(PAGE.read_text(encoding="utf-8")):
        first = block.text.splitlines()[0] if block.text else ""
        if block.language == "python" and first.startswith("# ") and first.endswith(".py"):
            files[first[2:].strip()] = block.text + "\n"
    return files


def setup_arguments(source: str) -> dict:
    """The keyword arguments the page's setup.py passes to `setup()`."""
    captured = {}
    original = setuptools.setup
    setuptools.setup = lambda **kwargs: captured.update(kwargs)
    try:
        exec(compile(source, "setup.py", "exec"), {"__name__": "__main__"})
    finally:
        setuptools.setup = original
    return captured


@pytest.fixture
def installed(tmp_path):
    """The page's plugin, installed into a folder on sys.path; removed (and the other plugins
    reloaded without it) afterwards."""
    files = page_files()
    assert {"setup.py", "srcframework_swapnoise/noise.py", "srcframework_swapnoise/plugin.py"} <= set(files)
    site = tmp_path / "site"
    for path, source in files.items():
        if path != "setup.py":
            (site / path).parent.mkdir(parents=True, exist_ok=True)
            (site / path).write_text(source)
    (site / "srcframework_swapnoise" / "__init__.py").write_text("")
    arguments = setup_arguments(files["setup.py"])
    name, version = arguments["name"], arguments["version"]
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    lines = ["[srcframework]"] + arguments["entry_points"]["srcframework"]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")

    unload_plugins()
    sys.path.insert(0, str(site))
    importlib.invalidate_caches()
    yield site
    sys.path.remove(str(site))
    for module in [m for m in sys.modules if m.startswith("srcframework_swapnoise")]:
        del sys.modules[module]
    unload_plugins()
    importlib.invalidate_caches()
    load_plugins()


def test_the_page_plugin_loads_and_noises(installed):
    report = load_plugins()
    plugin = next(p for p in report.plugins if p.name == "swap")
    assert plugin.distribution == "srcframework-swapnoise" and plugin.added == {"noise_sources": ["swap"]}

    source = NoiseSource.from_params(Params({"type": "swap", "word_probability": 1.0}))
    questions = ["Who founded the town of Jastemora?", "When was it built?"]
    noised = source.noise(questions, seed=0)
    assert noised == source.noise(list(reversed(questions)), seed=0)[::-1]  # each question on its own
    assert all(a != b and sorted(a) == sorted(b) for a, b in zip(questions, noised))  # letters swapped
    assert source.noise(questions, seed=1) != noised or source.noise(questions, seed=2) != noised
    assert NoiseSource.from_params(Params({"type": "swap", "word_probability": 0.0})).noise(questions) == questions
    assert source.describe() == {"type": "swap", "word_probability": 1.0}
    with pytest.raises(InputError):
        NoiseSource.from_params(Params({"type": "swap", "word_probability": 2}))


def test_the_page_shows_what_list_plugins_prints(installed):
    printed = [" ".join(line.split()) for line in format_table(load_plugins(strict=False)).splitlines()]
    shown = next(block.text for block in fenced_blocks(PAGE.read_text(encoding="utf-8"))
                 if block.language == "text" and block.text.startswith("PLUGIN"))
    for line in shown.splitlines():
        if line.split()[0] in ("PLUGIN", "swap"):
            assert " ".join(line.split()) in printed


def test_the_page_plugin_makes_a_challenge_set(installed, tmp_path):
    from srcframework.jobs.challenge_set import make_challenge_set

    load_plugins()
    out = tmp_path / "dev-swap.json"
    make_challenge_set(str(ROOT / "srcframework/data/default/dev.json"), str(out),
                       {"type": "swap", "word_probability": 0.3}, seed=0, progress=False)
    data = json.loads(out.read_text())
    questions = [qa for article in data["data"] for paragraph in article["paragraphs"] for qa in paragraph["qas"]]
    assert len(questions) == 205
    assert sum(qa["question"] != qa["original_question"] for qa in questions) > 100
