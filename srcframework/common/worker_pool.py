import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from typing import Callable, Iterable, Iterator, List, Optional, Sequence

# module-level functions that every spawned worker runs first: a spawned process starts from a bare
# interpreter, so what the parent set up beyond importing (AllenNLP's patches, third-party
# plugins' components) is set up again there; `srcframework.allennlp_plugin` adds them
WORKER_SETUP: List[Callable[[], object]] = []


def on_worker_start(function: Callable[[], object]) -> None:
    """Adds a module-level function without arguments to what every spawned worker runs first."""
    if function not in WORKER_SETUP:
        WORKER_SETUP.append(function)


PR_SET_PDEATHSIG = 1  # prctl(2)
WATCH_SECONDS = 1.0


def end_with_parent(parent: int) -> None:
    """Makes this process end when the process `parent` ends, however it ends (kill -9 included): on
    Linux the kernel sends it SIGKILL then (prctl PR_SET_PDEATHSIG); elsewhere a thread sees that its
    parent changed. A parent already gone ends it at once."""
    watched = False
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            watched = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            watched = False
    if os.getppid() != parent:  # it ended before the signal was asked for
        os._exit(1)
    if not watched:
        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(WATCH_SECONDS)
            os._exit(1)

        threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _start_worker(setup: List[Callable[[], object]], initializer: Optional[Callable], initargs: tuple,
                  parent: Optional[int] = None) -> None:
    if parent is not None:
        end_with_parent(parent)
    # Ctrl-C reaches every process of the terminal's group: the parent stops the work (it ends the
    # pool and says in one line what is kept); a worker that raised KeyboardInterrupt too would
    # print a traceback of its own
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for function in setup:
        function()
    if initializer is not None:
        initializer(*initargs)


@contextlib.contextmanager
def _sigint_ignored_by_new_processes():
    """Ctrl-C ignored while the workers are started: an ignored signal stays ignored in a process
    started then, so a worker that is still importing when Ctrl-C comes (before `_start_worker`)
    prints no traceback either. The parent's own handler is back as soon as they are started."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def worker_results(
    function: Callable,
    tasks: Sequence,
    workers: int,
    ordered: bool = False,
    initializer: Optional[Callable] = None,
    initargs: tuple = (),
) -> Iterator[Iterable]:
    """Yields the results of `function` over `tasks`: in this process when `workers` is 1 or there
    is at most one task, otherwise in a pool of spawned processes (spawn, so a worker never
    inherits a forked torch or audio library state). The pool is terminated on leaving, also when
    the caller stops early or fails, and its workers end with this process however it ends (kill -9
    included: `end_with_parent`). Results come in completion order unless `ordered`.

    # Parameters

    function : `Callable`
        A module-level function (it is pickled for the workers).
    tasks : `Sequence`
    workers : `int`
    ordered : `bool`, optional (default = `False`)
    initializer : `Callable`, optional
        Run once in each worker, after `WORKER_SETUP` (or once here, when there is no pool and
        there are tasks).
    initargs : `tuple`, optional
    """
    pool = None
    try:
        if workers > 1 and len(tasks) > 1:
            with _sigint_ignored_by_new_processes():
                pool = multiprocessing.get_context("spawn").Pool(
                    min(workers, len(tasks)), _start_worker, (list(WORKER_SETUP), initializer, initargs, os.getpid())
                )
            yield pool.imap(function, tasks) if ordered else pool.imap_unordered(function, tasks)
        else:
            if initializer is not None and tasks:
                initializer(*initargs)
            yield map(function, tasks)
    finally:
        if pool is not None:
            pool.terminate()
