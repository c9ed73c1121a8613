"""
Reading a model archive (`.tar.gz`) end to end before anything extracts it.

`tarfile` reads a gzip stream only as far as the tar listing needs, and Python's gzip checks the
stream's CRC and length only when it reaches the end: an archive with one byte changed in the
middle can be extracted, loaded and used without a word, and a truncated one fails deep inside
the extraction. `check_archive` reads the whole stream first (every byte, the tar listing, the
CRC and length in the gzip trailer), so such an archive is one `ArchiveError` line: what is wrong
with which file. A git-LFS pointer file (what a clone without `git lfs` holds in place of a
large file) is named as such, with how to fetch the archive.

A file checked once is not read again in the same process while its size and modification time
stay the same.
"""
import gzip
import os
import re
import tarfile
import zlib
from typing import Dict, Tuple

from srcframework.common.errors import InputError, InputFileNotFound

GZIP_MAGIC = b"\x1f\x8b"
LFS_POINTER = b"version https://git-lfs.github.com/spec/"
_LFS_FIELDS = re.compile(rb"^(oid sha256:(?P<oid>[0-9a-f]{64})|size (?P<size>\d+))$", re.MULTILINE)
BLOCK = 1 << 20

_checked: Dict[Tuple[str, int, int], bool] = {}


class ArchiveError(InputError):
    """An archive that cannot be what it claims to be: damaged, truncated, or not an archive;
    `pointer` is True for a git-LFS pointer file in its place."""

    def __init__(self, message: str, pointer: bool = False) -> None:
        super().__init__(message)
        self.pointer = pointer


def lfs_pointer_message(path: str, head: bytes, fetch: str = "") -> str:
    """The line for a git-LFS pointer file found where an archive should be."""
    oid = size = None
    for found in _LFS_FIELDS.finditer(head):
        oid = found.group("oid").decode() if found.group("oid") else oid
        size = int(found.group("size")) if found.group("size") else size
    what = ", ".join(part for part in (f"{size:,} bytes" if size is not None else "",
                                       f"sha256 {oid[:12]}..." if oid else "") if part)
    fetch = fetch or "run `git lfs pull` in the clone it belongs to (git-lfs installed) to fetch the archive"
    return f"{path} is a git-LFS pointer file{f' ({what})' if what else ''}, not the archive itself: {fetch}"


def check_archive(path: str, fetch: str = "") -> None:
    """
    Reads the gzipped tar `path` to its end: the gzip stream (its CRC and length included) and the
    tar listing. Nothing is written.

    # Parameters

    path : `str`
    fetch : `str`, optional
        What to do to get the real archive, said after a git-LFS pointer (by default: `git lfs pull`).

    # Raises

    ArchiveError
        One line: a pointer file, not a gzip file, a truncated file, a damaged stream or listing.
    InputFileNotFound
        When `path` is not a file.
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise InputFileNotFound(f"{path}: archive not found")
    stat = os.stat(path)
    key = (os.path.realpath(path), stat.st_size, stat.st_mtime_ns)
    if key in _checked:
        return
    with open(path, "rb") as raw:
        head = raw.read(1024)
        if head.startswith(LFS_POINTER):
            raise ArchiveError(lfs_pointer_message(path, head, fetch), pointer=True)
        if not head.startswith(GZIP_MAGIC):
            what = "an empty file" if not head else f"it starts with {head[:16]!r}"
            raise ArchiveError(f"{path} is not a model archive (.tar.gz): not a gzip file ({what})")
        raw.seek(0)
        members = 0
        try:
            with gzip.GzipFile(fileobj=raw, mode="rb") as stream:
                with tarfile.open(fileobj=stream, mode="r|") as listing:
                    for _ in listing:
                        members += 1
                while stream.read(BLOCK):  # what follows the tar's end, to the gzip trailer: its CRC is checked there
                    pass
        except EOFError:
            raise ArchiveError(f"{path} is truncated: its gzip stream ends early ({stat.st_size:,} bytes on disk); "
                               "copy or download it again") from None
        except gzip.BadGzipFile as err:
            raise ArchiveError(f"{path} is damaged: {err} (a byte changed since it was written); "
                               "copy or download it again") from None
        except zlib.error as err:
            raise ArchiveError(f"{path} is damaged: its compressed data is invalid ({err}); "
                               "copy or download it again") from None
        except tarfile.TarError as err:
            raise ArchiveError(f"{path} is not a valid tar archive inside its gzip stream: {err}") from None
    if members == 0:
        raise ArchiveError(f"{path} is an empty tar archive: no model in it")
    _checked[key] = True
