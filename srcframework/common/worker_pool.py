import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
from typing import Callable, Iterable, Iterator, List, Optional, Sequence

# module-level functions that every worker runs first: a worker starts from a process that only
# imported modules, so what the parent set up beyond importing (AllenNLP's patches, third-party
# plugins' components) is set up again there; `srcframework.allennlp_plugin` adds them
WORKER_SETUP: List[Callable[[], object]] = []

# what the fork server imports once, when this process's first pool starts (those of them this
# process has imported), beside the modules of the pool's functions: every worker is forked from it
# with these imported, instead of importing them itself (about 5 s each). One the server cannot
# import (ImportError) is imported by each worker; one that raises anything else ends the server
PRELOAD = ("torch", "allennlp.common", "allennlp.data", "allennlp.modules", "allennlp.nn", "allennlp.models")


def on_worker_start(function: Callable[[], object]) -> None:
    """Adds a module-level function without arguments to what every worker runs first."""
    if function not in WORKER_SETUP:
        WORKER_SETUP.append(function)


def end_with_caller() -> None:
    """Makes this worker end when the process that started its pool ends, however it ends (kill -9
    included). multiprocessing keeps a pipe from that process to each worker open for the worker's
    life (`parent_process().sentinel`); it reads as closed once that process is gone, and a thread
    waiting on it ends the worker then, or at once if it is gone already. (The worker's own parent
    is the fork server, which outlives the caller while a worker lives, so the kernel's parent-death
    signal would not do.)"""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _start_worker(setup: List[Callable[[], object]], initializer: Optional[Callable], initargs: tuple,
                  environment: Optional[dict] = None) -> None:
    end_with_caller()
    if environment is not None:  # the pool's environment now, not the fork server's at its start
        os.environ.clear()
        os.environ.update(environment)
        # torch took its thread count from the server's environment when the server imported it
        threads = environment.get("OMP_NUM_THREADS", "")
        if threads.isdigit() and int(threads) > 0 and "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(int(threads))
    # Ctrl-C reaches every process of the terminal's group: the parent stops the work (it ends the
    # pool and says in one line what is kept); a worker that raised KeyboardInterrupt too would
    # print a traceback of its own
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for function in setup:
        function()
    if initializer is not None:
        initializer(*initargs)


SOCKET_PATH_BYTES = 107  # what an AF_UNIX socket's path holds (sun_path, less its closing NUL)


def _fork_server_can_listen() -> bool:
    """Whether the fork server runs or can: it listens on a socket in a folder of the temporary
    folder (`listener-` and 8 characters), whose path must fit in a socket address; with a deeper
    TMPDIR it could not start."""
    from multiprocessing import forkserver, util

    if getattr(forkserver._forkserver, "_forkserver_address", None) is not None:
        return True
    try:
        folder = util.get_temp_dir()
    except OSError:
        return False
    return len(os.fsencode(os.path.join(folder, "listener-xxxxxxxx"))) <= SOCKET_PATH_BYTES


def _context(modules: Sequence[str]) -> multiprocessing.context.BaseContext:
    """The fork server's context where there is one and it can listen (its preloads set before it
    first starts), else spawn's."""
    if "forkserver" not in multiprocessing.get_all_start_methods() or not _fork_server_can_listen():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(
        [name for name in dict.fromkeys([*PRELOAD, *modules]) if name != "__main__" and name in sys.modules]
    )
    return context


@contextlib.contextmanager
def _sigint_ignored_by_new_processes():
    """Ctrl-C ignored while new processes start: an ignored signal stays ignored in a process
    started then (the fork server, started with the first pool, hands it on to every worker it
    forks), so a worker that is still starting when Ctrl-C comes (before `_start_worker`) prints no
    traceback either. The parent's own handler is back as soon as they are started (the fork
    server: launched, before it has imported anything)."""
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
    is at most one task, otherwise in a pool of processes forked from a fork server (one process a
    caller, started with its first pool, that has only imported modules: a worker never inherits
    a torch or audio library state that ran, nor a thread of torch's, and starts without importing again;
    `spawn` where there is no fork server, or a TMPDIR too deep for its socket). A worker gets the caller's environment and folder as
    they are when the pool starts, and torch in it the OMP_NUM_THREADS of that environment; what
    else a module the server imported read from the environment when it was imported (a cache
    folder) is as it was at the first pool. The pool is terminated on leaving, also when
    the caller stops early or fails, and its workers end with this process however it ends (kill -9
    included: `end_with_caller`). Results come in completion order unless `ordered`. A worker or
    the fork server killed while the pool runs loses its tasks and the pool waits for them; with the
    fork server killed, only a kill of the caller ends it.

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
            setup = list(WORKER_SETUP)
            context = _context([f.__module__ for f in (*setup, function, initializer) if f is not None])
            arguments = (min(workers, len(tasks)), _start_worker, (setup, initializer, initargs, dict(os.environ)))
            server = context.get_start_method() == "forkserver"
            with _sigint_ignored_by_new_processes():
                if server:
                    # the server starts with Ctrl-C ignored and every worker it forks inherits that;
                    # the caller waits for its imports (seconds, the first time) with its own handler
                    from multiprocessing import forkserver

                    forkserver.ensure_running()
                else:
                    pool = context.Pool(*arguments)
            if pool is None:
                pool = context.Pool(*arguments)
            results = pool.imap(function, tasks) if ordered else pool.imap_unordered(function, tasks)
            yield results
        else:
            if initializer is not None and tasks:
                initializer(*initargs)
            yield map(function, tasks)
    finally:
        if pool is not None:
            pool.terminate()
