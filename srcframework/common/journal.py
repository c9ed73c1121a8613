"""Append-only JSON-lines journals that let a long job resume after a kill.

A journal's first line is a header naming the job (`{"key": ..., ...}`); each later line is one
finished item, written in batches that are flushed and fsynced. A rerun reads the journal back,
refuses one written by another job (another key) and redoes only what is missing.

Every line ends with a newline, so a line without one is torn: the run was killed while writing
it. It is ignored when the journal is read, and cut off (the file truncated to its last complete
line) before a `JournalWriter` appends, so new rows never join a torn one. A journal whose header
is torn holds nothing and starts afresh.
"""
import json
import logging
import os
from typing import Dict, Iterable, List

from srcframework.common.errors import InputError

logger = logging.getLogger(__name__)


def read_journal(path: str, key: str, other_job: str) -> List[dict]:
    """The item rows of the journal at `path` (none when there is no journal).

    # Parameters

    path : `str`
    key : `str`
        The key of the job being resumed; a journal with another key is an `InputError` (a
        `ValueError` that the command line prints as one line).
    other_job : `str`
        What a different key means, for the error message ("another recognizer, split or ...").
    """
    if not os.path.exists(path):
        return []
    with open(path, "rb") as handle:
        complete = handle.read()
    complete = complete[: complete.rfind(b"\n") + 1]  # a torn last line is left out
    lines = complete.decode("utf-8").split("\n")[:-1]
    if not lines:
        return []
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("key") != key:
        raise InputError(f"{path} belongs to {other_job}; delete it (or choose another output path) to start afresh")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        if not line:
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            raise InputError(f"{path}, line {number}: not a JSON row; delete the journal to start afresh") from None
    return rows


def cut_torn_line(path: str) -> int:
    """Truncates the journal at `path` after its last newline; returns the bytes cut off (0 when
    the last line is complete or there is no file)."""
    if not os.path.exists(path):
        return 0
    with open(path, "rb+") as handle:
        size = handle.seek(0, os.SEEK_END)
        if size == 0:
            return 0
        block = 1 << 16
        end = size
        keep = 0
        while end > 0:  # look for the last newline from the end, a block at a time
            start = max(0, end - block)
            handle.seek(start)
            found = handle.read(end - start).rfind(b"\n")
            if found >= 0:
                keep = start + found + 1
                break
            end = start
        if keep < size:
            handle.truncate(keep)
            handle.flush()
            os.fsync(handle.fileno())
        return size - keep


class JournalWriter:
    """Appends item rows to a journal, writing `header` (which holds the job's `key`) first when
    the journal is new. Use as a context manager.

    # Parameters

    path : `str`
    header : `Dict`
    """

    def __init__(self, path: str, header: Dict) -> None:
        if "key" not in header:
            raise ValueError("a journal header needs the job's 'key'")
        self.path = path
        self.header = header
        self._handle = None

    def __enter__(self) -> "JournalWriter":
        cut = cut_torn_line(self.path)
        if cut:
            logger.warning("%s: cut off a torn last line (%d bytes) left by an interrupted run", self.path, cut)
        fresh = not os.path.exists(self.path) or os.path.getsize(self.path) == 0
        self._handle = open(self.path, "a", encoding="utf-8")
        if fresh:
            self._handle.write(json.dumps(self.header) + "\n")
            self._handle.flush()
        return self

    def append(self, rows: Iterable[dict]) -> None:
        """Write `rows` and make them durable before returning."""
        self._handle.write("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def __exit__(self, *exc) -> None:
        self._handle.close()
