"""Released archives fetched by name: `fetch(url, target, sha256)` downloads one file into the models
folder, whole and checked, or not at all.

The bytes go into a temporary file beside `target` (`common.files.atomic_output`) while their
sha256 is taken; only a file of the length the server announced (and the card's `size`, where it
gives one) whose sha256 is the card's is moved onto `target`. A refused or broken connection, a
server that closes mid-file, an HTTP error or a different checksum is a `DownloadError`, one line
naming the URL and what went wrong, and leaves nothing in the models folder: neither a partial
file nor a temporary one.

Where the archives are: `models_url()`, `$SRCFRAMEWORK_MODELS_URL` (a folder URL that serves the
release's `models/` files: `http://HOST/models/`, `file:///path/to/clone/models/`), else
`DEFAULT_MODELS_URL`. A card's `download` is a file name under it, or a whole URL.
"""
import hashlib
import http.client
import logging
import os
import urllib.error
import urllib.parse
import urllib.request
from typing import Optional

from srcframework.common.errors import InputError
from srcframework.common.files import atomic_output

logger = logging.getLogger(__name__)

MODELS_URL_ENV = "SRCFRAMEWORK_MODELS_URL"
# where the released archives are uploaded with each release: the files of the repository's models/
DEFAULT_MODELS_URL = "https://github.com/srcframework/srcframework/releases/download/models-v1/"
TIMEOUT_SECONDS = 60  # for the connection and for each read: a server that stalls is an error
CHUNK = 1 << 20


class DownloadError(InputError):
    """A released archive that could not be fetched whole with its card's sha256."""


def models_url() -> str:
    """The folder URL the released archives are fetched from: `$SRCFRAMEWORK_MODELS_URL`, else
    `DEFAULT_MODELS_URL`; it always ends with `/`."""
    base = os.environ.get(MODELS_URL_ENV, "").strip() or DEFAULT_MODELS_URL
    return base if base.endswith("/") else base + "/"


def download_url(name: str) -> str:
    """`name` (a card's `download`) as a URL: a whole URL as it is, a file name under `models_url()`."""
    if "://" in name:
        return name
    return urllib.parse.urljoin(models_url(), urllib.parse.quote(name))


def fetch(url: str, target: str, sha256: str, size: Optional[int] = None, timeout: float = TIMEOUT_SECONDS) -> str:
    """
    Downloads `url` to `target` (atomically) and returns `target`, once the bytes are whole and
    their sha256 is `sha256`; otherwise a `DownloadError`, and `target` is left as it was.

    # Parameters

    url : `str`
    target : `str`
        The file to write; its folder is made.
    sha256 : `str`
        The hex digest the bytes must have (the card's).
    size : `int`, optional
        The bytes the file must have (the card's `size`).
    timeout : `float`, optional (default = `TIMEOUT_SECONDS`)
        Seconds to wait for the connection and for each read.
    """
    os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
    digest, received = hashlib.sha256(), 0
    logger.info("fetching %s into %s", url, target)
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            announced = response.headers.get("Content-Length")
            with atomic_output(target, "wb", size=size) as handle:
                while True:
                    chunk = response.read(CHUNK)
                    if not chunk:
                        break
                    digest.update(chunk)
                    handle.write(chunk)
                    received += len(chunk)
                if announced is not None and announced.isdigit() and received != int(announced):
                    raise DownloadError(f"cannot fetch {url}: the connection closed after {received:,} of "
                                        f"{int(announced):,} bytes; nothing was kept")
                if size is not None and received != size:
                    raise DownloadError(f"{url} has {received:,} bytes, not the {size:,} its card records; nothing was kept")
                actual = digest.hexdigest()
                if actual != sha256:
                    raise DownloadError(f"{url} does not have the sha256 its card records ({actual[:12]}... against "
                                        f"{sha256[:12]}...); nothing was kept")
    except DownloadError:
        raise
    except http.client.IncompleteRead as err:
        raise DownloadError(f"cannot fetch {url}: the connection closed after {received + len(err.partial):,} "
                            f"bytes, before the end of the file; nothing was kept") from None
    except urllib.error.HTTPError as err:
        raise DownloadError(f"cannot fetch {url}: HTTP {err.code} {err.reason}") from None
    except urllib.error.URLError as err:
        raise DownloadError(f"cannot fetch {url}: {err.reason}") from None
    except (OSError, http.client.HTTPException) as err:
        why = " ".join(str(err).split()) or type(err).__name__
        raise DownloadError(f"cannot fetch {url}: {why} (after {received:,} bytes); nothing was kept") from None
    logger.info("fetched %s (%s bytes, sha256 checked)", target, f"{received:,}")
    return target
