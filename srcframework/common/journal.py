"""Append-only JSON-lines journals that let a long job resume after a kill.

A journal's first line is a header naming the job (`{"key": ..., ...}`); each later line is one
finished item, written in batches that are flushed and fsynced. A rerun reads the journal back,
refuses one written by another job (another key) and redoes only what is missing. The last line of
a killed run may be cut short: it is ignored, so that batch is redone.
"""
import json
import os
from typing import Dict, Iterable, List


def read_journal(path: str, key: str, other_job: str) -> List[dict]:
    """The item rows of the journal at `path` (none when there is no journal).

    # Parameters

    path : `str`
    key : `str`
        The key of the job being resumed; a journal with another key is an error.
    other_job : `str`
        What a different key means, for the error message ("another recognizer, split or ...").
    """
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    header = json.loads(lines[0]) if lines and lines[0] else {}
    if header.get("key") != key:
        raise ValueError(f"{path} belongs to {other_job}; delete it (or choose another output path) to start afresh")
    rows = []
    for line in lines[1:]:
        if not line:
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            break
    return rows


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
        fresh = not os.path.exists(self.path)
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
