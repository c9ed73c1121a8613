"""MkDocs hook: the built site works when opened from disk (`file://.../site/index.html`).

With MkDocs' directory URLs a page `tour.md` is written as `tour/index.html` and linked as
`../tour/`; a web server answers such a link with the folder's `index.html`, a browser reading
files shows the folder's listing instead. This hook keeps the layout and writes every relative
link to a folder as a link to its `index.html` (`../tour/index.html#4-evaluate`), so the same site
works served and from disk. Links with a scheme, absolute paths and in-page anchors are left alone.
"""
import re

_LINK = re.compile(r'(\b(?:href|src)=")([^"]*)(")')


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
