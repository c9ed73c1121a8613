"""The built documentation site works opened from disk (file://): every relative link of every
page names a file that is there, not a folder (which a browser reading files shows as a listing),
and no page offers MkDocs' search, whose Web Worker and index browsers block there; `mkdocs serve`
keeps the search."""
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


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site as `make docs` builds it."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    site = tmp_path_factory.mktemp("docs") / "site"
    build(load_config(str(ROOT / "mkdocs.yml"), strict=True, site_dir=str(site)))
    return site


def test_every_relative_link_of_the_built_site_is_a_file(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 20
    broken = [f"{page.relative_to(site)}: {url}" for page in pages for url, target in relative_targets(page)
              if not target.is_file()]
    assert not broken, broken[:20]
    assert not (site / "hooks").exists()  # the hook itself is not published


def test_the_built_site_offers_no_search_that_cannot_work_from_disk(site):
    assert not (site / "search_index.json").exists() and not (site / "search").exists()
    for page in sorted(site.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        assert "search/main.js" not in text and "mkdocs_search_modal" not in text, page.relative_to(site)


def test_mkdocs_serve_keeps_the_search():
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"))
    config.plugins.on_startup(command="serve", dirty=False)
    try:
        config = config.plugins.on_config(config)
        assert "search" in config.plugins and "search/main.js" in config.extra_javascript
    finally:
        config.plugins.on_startup(command="build", dirty=False)
    config = load_config(str(ROOT / "mkdocs.yml"))
    config = config.plugins.on_config(config)
    assert "search" not in config.plugins and "search/main.js" not in config.extra_javascript
