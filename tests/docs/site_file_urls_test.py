"""The built documentation site works opened from disk (file://): every relative link of every
page names a file that is there, not a folder (which a browser reading files shows as a listing)."""
import importlib.util
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from tests.conftest import ROOT

pytest.importorskip("mkdocs", reason="mkdocs is not installed (make install installs it)")

_LINK = re.compile(r'\b(?:href|src)="([^"]*)"')


def hook():
    spec = importlib.util.spec_from_file_location("file_urls", ROOT / "docs" / "hooks" / "file_urls.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_folder_links_name_their_index_page():
    file_url = hook().file_url
    assert file_url("../tour/") == "../tour/index.html"
    assert file_url("../tour/#4-evaluate") == "../tour/index.html#4-evaluate"
    assert file_url("..") == "../index.html" and file_url(".") == "./index.html"
    assert file_url("../..") == "../../index.html"
    assert file_url("./?q=1") == "./index.html?q=1"
    for kept in ("#next", "../css/base.css", "https://example.org/x/", "/abs/", "mailto:a@b", "../figures/f1.png"):
        assert file_url(kept) == kept


def relative_targets(page: Path):
    for url in _LINK.findall(page.read_text(encoding="utf-8")):
        if not url or url.startswith(("#", "/", "mailto:", "javascript:", "data:")) or "://" in url:
            continue
        path = unquote(re.split(r"[#?]", url, maxsplit=1)[0])
        yield url, (page.parent / path) if path else page


def test_every_relative_link_of_the_built_site_is_a_file(tmp_path):
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    site = tmp_path / "site"
    build(load_config(str(ROOT / "mkdocs.yml"), strict=True, site_dir=str(site)))
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 20
    broken = [f"{page.relative_to(site)}: {url}" for page in pages for url, target in relative_targets(page)
              if not target.is_file()]
    assert not broken, broken[:20]
    assert not (site / "hooks").exists()  # the hook itself is not published
