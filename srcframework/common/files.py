"""Atomic file writes, file hashes, the fingerprints of the files a config names, and reading a
JSON file with one-line errors.

A reader of an atomic write sees either the old file or the complete new one, never a part.

Every writer here fills a temporary file in the destination's own folder (so `os.replace` is a
rename on one file system), fsyncs it, and only then moves it over the destination. If the
writer fails, the temporary file is removed and the destination is left as it was; a full disk
(`ENOSPC`) is a `DiskFull` line naming the folder, the file and the bytes needed where known.
"""
import contextlib
import errno
import hashlib
import json
import os
import shutil
import tempfile
from typing import IO, Any, Dict, Iterable, Iterator, Optional

from srcframework.common.errors import InputError, InputFileNotFound, json_error_text


class DiskFull(InputError):
    """A write that found no space left on its device (`ENOSPC`); the file it was to replace is kept."""


def disk_full_message(path: str, needed: Optional[int] = None) -> str:
    """The line of a full disk: the folder, the file not written, the bytes it needed (where known)
    and the bytes free there now."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        free = f"{shutil.disk_usage(folder).free:,} bytes free"
    except OSError:
        free = "free space unknown"
    need = f"{needed:,} bytes needed, " if needed is not None else ""
    return (f"no space left on the device of {folder}: {os.path.basename(path)} was not written ({need}{free}); what was there before "
            "is kept: free some space and run the command again")


def is_disk_full(error: BaseException) -> bool:
    return isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT)


@contextlib.contextmanager
def atomic_output(path: str, mode: str = "w", encoding: str = "utf-8", size: Optional[int] = None) -> Iterator[IO]:
    """
    Opens a temporary file beside `path` for writing and yields it; on leaving the block without
    an exception the file is fsynced and moved over `path` (permissions 0644, as `open` would
    give). On an exception nothing is written to `path`.

    # Parameters

    path : `str`
    mode : `str`, optional (default = `"w"`)
        `"w"` for text, `"wb"` for bytes.
    encoding : `str`, optional (default = `"utf-8"`)
        Used in text mode only.
    size : `int`, optional
        The bytes that will be written, where the caller knows them: said when the disk is full.

    # Raises

    DiskFull
        When the device has no space left (`ENOSPC`): one line naming the folder, the file and the
        bytes needed where known; `path` is left as it was.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_output writes with mode 'w' or 'wb', not {mode!r}")
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(descriptor, mode, encoding=None if "b" in mode else encoding) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o644)  # mkstemp makes files only their owner can read
        os.replace(temporary, path)
    except BaseException as error:
        if os.path.exists(temporary):
            os.remove(temporary)
        if is_disk_full(error):
            raise DiskFull(disk_full_message(path, size)) from error
        raise


def write_bytes_atomic(path: str, payload: bytes) -> None:
    with atomic_output(path, "wb", size=len(payload)) as handle:
        handle.write(payload)


def write_text_atomic(path: str, text: str) -> None:
    with atomic_output(path, size=len(text.encode("utf-8"))) as handle:
        handle.write(text)


def write_json_atomic(path: str, payload, indent: int = None) -> None:
    write_text_atomic(path, json.dumps(payload, ensure_ascii=False, indent=indent))


def write_lines_atomic(path: str, rows: Iterable[dict]) -> None:
    """One JSON object a line."""
    with atomic_output(path) as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def size_limit_text(limit: int) -> str:
    """A byte limit as the docs name it, in MiB, with its MB: `20 MiB (21.0 MB)`."""
    return f"{limit / 2 ** 20:.0f} MiB ({limit / 1e6:.1f} MB)"


def file_sha256(path: str) -> str:
    """The sha256 hex digest of a file's bytes, read a megabyte at a time."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def text_sha256(text: str) -> str:
    """The sha256 hex digest of a string's UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def path_fingerprint(path: str) -> str:
    """The sha256 of a file's bytes; for a folder (a model folder can hold gigabytes), the sha256
    of its files' relative paths, sizes and modification times, prefixed with `dir:` (a file gone
    while the folder is read, such as the temporary file of a process writing there, is not in it)."""
    if not os.path.isdir(path):
        return file_sha256(path)
    digest = hashlib.sha256()
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(root, name)
            try:
                stat = os.stat(full)
            except FileNotFoundError:  # a file another process is writing was renamed or removed meanwhile
                continue
            digest.update(f"{os.path.relpath(full, path)}\t{stat.st_size}\t{stat.st_mtime_ns}\n".encode("utf-8"))
    return "dir:" + digest.hexdigest()


def named_files(params: Any) -> Dict[str, str]:
    """`{path: path_fingerprint(path)}` of every string in a params tree (dicts, lists) that names an
    existing file or folder: what a job's key needs besides the params themselves, so that a noise
    list or a model folder changed in place makes another job."""
    found: Dict[str, str] = {}
    if isinstance(params, dict):
        for value in params.values():
            found.update(named_files(value))
    elif isinstance(params, (list, tuple)):
        for value in params:
            found.update(named_files(value))
    elif isinstance(params, str) and params and "\n" not in params and os.path.exists(params):
        found[params] = path_fingerprint(params)
    return dict(sorted(found.items()))


def read_json(path: str, missing: Optional[str] = None) -> Any:
    """The JSON value in the file `path`. A missing file is an `InputFileNotFound` (`missing`, or
    "PATH: file not found"); a file that is not JSON an `InputError` that says where it fails."""
    if not os.path.isfile(path):
        raise InputFileNotFound(missing or f"{path}: file not found")
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except json.JSONDecodeError as err:
        raise InputError(f"{path}: not valid JSON: {json_error_text(err)}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a UTF-8 text file") from None
