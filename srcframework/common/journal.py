"""Append-only JSON-lines journals that let a long job resume after a kill.

A journal's first line is a header naming the job (`{"key": ..., ...}`); each later line is one
finished item, written in batches that are flushed and fsynced. A rerun reads the journal back,
refuses one written by another job (another key) and redoes only what is missing.

Every line ends with a newline, so a line without one is torn: the run was killed while writing
it. It is ignored when the journal is read, and cut off (the file truncated to its last complete
line) before a `JournalWriter` appends, so new rows never join a torn one. A journal whose header
is torn holds nothing and starts afresh.

A job holds a lock on its journal while it runs (`JournalLock`, or `locks_journal` around the
job's function): a second run writing the same output at the same time stops at once with one line
naming the running one (its process id and command line) instead of doing all the work again,
and a journal that a running job holds is never said to be one to delete. The lock is an
`fcntl.flock` on `JOURNAL.lock`, which the kernel releases when the process ends, however it ends.
"""
import datetime
import functools
import inspect
import json
import logging
import os
import shlex
import sys
from typing import Callable, Dict, Iterable, List, Optional

try:
    import fcntl
except ImportError:  # no flock here: jobs run without the lock
    fcntl = None

from srcframework.common.errors import InputError
from srcframework.common.files import DiskFull, disk_full_message, is_disk_full

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
        holder = lock_holder(path)
        if holder:
            raise JournalBusy(f"{path} belongs to {other_job}, which is running now ({holder}); wait for it to end, "
                              "or choose another output path")
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
        """Write `rows` and make them durable before returning. A full disk is a `DiskFull` line (the rows
        written before are kept; a torn last line is cut off by the next run)."""
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        try:
            self._handle.write(text)
            self._handle.flush()
            os.fsync(self._handle.fileno())
        except OSError as error:
            if is_disk_full(error):
                raise DiskFull(disk_full_message(self.path, len(text.encode("utf-8")))) from error
            raise

    def __exit__(self, *exc) -> None:
        try:
            self._handle.close()
        except OSError:
            if exc[0] is None:  # a failure on the way out is already being raised: it says what went wrong
                raise


class JournalBusy(InputError):
    """Another run holds the lock of a journal: it is writing the same output now."""


def _describe_holder(handle) -> str:
    handle.seek(0)
    try:
        holder = json.loads(handle.read() or "{}")
    except ValueError:
        holder = {}
    if not isinstance(holder, dict) or "pid" not in holder:
        return "another process"
    return f"process {holder['pid']}, since {holder.get('since', '?')}: {holder.get('command', '?')}"


def lock_holder(journal_path: str) -> Optional[str]:
    """Who holds the lock of the journal at `journal_path` (`process 123, since TIME: COMMAND`),
    or None when no running process does."""
    if fcntl is None:
        return None
    try:
        handle = open(f"{journal_path}.lock", "r", encoding="utf-8")
    except OSError:
        return None
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return _describe_holder(handle)
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        return None


class JournalLock:
    """
    Holds the lock of the journal at `journal_path` (an `fcntl.flock` on `JOURNAL.lock`, which
    records this process's id, start time and command line) from `__enter__` to `__exit__`, which
    removes the lock file. Where the journal's folder does not exist there is nothing to lock (the
    job's own output check then says so). A job whose progress is not a journal (a folder of
    recordings, say) locks a file of its own the same way.

    # Parameters

    journal_path : `str`
    what : `str`, optional
        What a second run is told is being written (default: `the journal JOURNAL`).

    # Raises

    JournalBusy
        Another running process holds it; the message names that process and its command line.
    """

    def __init__(self, journal_path: str, what: Optional[str] = None) -> None:
        self.journal_path = journal_path
        self.what = what or f"the journal {journal_path}"
        self.lock_path = f"{journal_path}.lock"
        self._handle = None

    def __enter__(self) -> "JournalLock":
        if fcntl is None or not os.path.isdir(os.path.dirname(os.path.abspath(self.lock_path))):
            return self
        while True:
            handle = open(self.lock_path, "a+", encoding="utf-8")
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = _describe_holder(handle)
                handle.close()
                raise JournalBusy(
                    f"another run is writing {self.what} now ({holder}); wait for it to end, "
                    "or give another output path"
                ) from None
            try:  # the file a run that just ended removed is not a lock: take the new one
                same = os.path.samestat(os.fstat(handle.fileno()), os.stat(self.lock_path))
            except FileNotFoundError:
                same = False
            if same:
                break
            handle.close()
        handle.seek(0)
        handle.truncate()
        since = datetime.datetime.now().isoformat(timespec="seconds")
        handle.write(json.dumps({"pid": os.getpid(), "since": since, "command": shlex.join(sys.argv)}))
        handle.flush()
        self._handle = handle
        return self

    def __exit__(self, *exc) -> None:
        if self._handle is not None:
            try:
                os.remove(self.lock_path)
            except FileNotFoundError:
                pass
            self._handle.close()  # releases the lock
            self._handle = None


def locks_journal(journal_path_of: Callable[[inspect.BoundArguments], str]):
    """Decorates a job's function so that it runs holding the `JournalLock` of the journal path
    that `journal_path_of` gives for the call's arguments (bound, with their defaults)."""

    def decorate(function):
        signature = inspect.signature(function)

        @functools.wraps(function)
        def locked(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            with JournalLock(journal_path_of(bound)):
                return function(*args, **kwargs)

        return locked

    return decorate
