"""MkDocs hook: the built site works when opened from disk (`file://.../site/index.html`).

With MkDocs' directory URLs a page `tour.md` is written as `tour/index.html` and linked as
`../tour/`; a web server answers such a link with the folder's `index.html`, a browser reading
files shows the folder's listing instead. This hook keeps the layout and writes every relative
link to a folder as a link to its `index.html` (`../tour/index.html#4-evaluate`), so the same site
works served and from disk. Links with a scheme, absolute paths and in-page anchors are left alone.

MkDocs' search cannot work from disk: it loads `search_index.json` in a Web Worker, both of which
browsers refuse to `file://` pages. So a build (`mkdocs build`, `make docs`) leaves the search
plugin out, with its box, scripts and index; `mkdocs serve` keeps it, and gives search.
"""
import re

from mkdocs.plugins import event_priority

_LINK = re.compile(r'(\b(?:href|src)=")([^"]*)(")')
_serving = False


def on_startup(command: str, dirty: bool) -> None:
    global _serving
    _serving = command == "serve"


@event_priority(100)  # before the search plugin's own on_config adds its scripts
def on_config(config):
    """Leaves the search plugin out unless the site is being served (`mkdocs serve`)."""
    search = config.plugins.get("search")
    if search is not None and not _serving:
        for methods in config.plugins.events.values():
            methods[:] = [method for method in methods if getattr(method, "__self__", None) is not search]
        dict.__delitem__(config.plugins, "search")
    return config


def file_url(url: str) -> str:
    """`url` with a relative folder path (`../tour/`, `../..`, `./`) pointing at its `index.html`;
    any other URL as it is."""
    if not url or url.startswith(("#", "/", "mailto:", "javascript:", "data:")) or "://" in url:
        return url
    cut = min([i for i in (url.find("#"), url.find("?")) if i >= 0], default=len(url))
    path, tail = url[:cut], url[cut:]
    if path.rsplit("/", 1)[-1] in (".", ".."):
        path += "/"
    if not path.endswith("/"):
        return url
    return f"{path}index.html{tail}"


def on_post_page(output: str, page, config) -> str:
    return _LINK.sub(lambda found: found.group(1) + file_url(found.group(2)) + found.group(3), output)
