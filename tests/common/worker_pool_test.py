import os

import pytest

from srcframework.common.worker_pool import worker_results

_STATE = {}


def _remember(value):
    _STATE["value"] = value


def _square_with_pid(x):
    return x * x, os.getpid(), _STATE.get("value")


def _fail_on_three(x):
    if x == 3:
        raise RuntimeError("three")
    return x


def test_in_process_runs_the_initializer_here():
    _STATE.clear()
    with worker_results(_square_with_pid, [1, 2, 3], workers=1, initializer=_remember, initargs=("here",)) as results:
        out = list(results)
    assert out == [(1, os.getpid(), "here"), (4, os.getpid(), "here"), (9, os.getpid(), "here")]


@pytest.mark.slow
def test_a_pool_of_workers_gives_every_result():
    _STATE.clear()
    tasks = list(range(6))
    with worker_results(_square_with_pid, tasks, workers=2, ordered=True, initializer=_remember, initargs=("w",)) as results:
        out = list(results)
    assert [square for square, _, _ in out] == [x * x for x in tasks]
    assert all(pid != os.getpid() and value == "w" for _, pid, value in out)
    assert "value" not in _STATE  # the initializer ran in the workers, not here


@pytest.mark.slow
def test_unordered_results_are_complete():
    with worker_results(_square_with_pid, list(range(5)), workers=2) as results:
        assert sorted(square for square, _, _ in results) == [0, 1, 4, 9, 16]


@pytest.mark.slow
def test_a_worker_error_reaches_the_caller():
    with pytest.raises(RuntimeError, match="three"):
        with worker_results(_fail_on_three, [1, 2, 3, 4], workers=2, ordered=True) as results:
            list(results)


def test_no_tasks_no_initializer():
    _STATE.clear()
    with worker_results(_square_with_pid, [], workers=4, initializer=_remember, initargs=("x",)) as results:
        assert list(results) == []
    assert _STATE == {}


def _mark_worker() -> None:
    os.environ["SRCFRAMEWORK_TEST_WORKER_SETUP"] = "ran"


def _read_mark(_task) -> str:
    return os.environ.get("SRCFRAMEWORK_TEST_WORKER_SETUP", "")


@pytest.mark.slow
def test_workers_run_the_setup_functions_first(monkeypatch):
    from srcframework.common import worker_pool

    monkeypatch.setattr(worker_pool, "WORKER_SETUP", [])
    worker_pool.on_worker_start(_mark_worker)
    worker_pool.on_worker_start(_mark_worker)  # once only
    assert worker_pool.WORKER_SETUP == [_mark_worker]
    monkeypatch.delenv("SRCFRAMEWORK_TEST_WORKER_SETUP", raising=False)
    with worker_pool.worker_results(_read_mark, [1, 2, 3], workers=2) as results:
        assert list(results) == ["ran"] * 3


def _where(_task):
    import torch

    return os.getppid(), os.getcwd(), os.environ.get("SRCFRAMEWORK_TEST_POOL_VALUE"), torch.get_num_threads()


@pytest.mark.slow
@pytest.mark.skipif("forkserver" not in __import__("multiprocessing").get_all_start_methods(),
                    reason="no fork server on this platform: workers are spawned")
def test_workers_come_from_one_fork_server_with_the_callers_folder_and_environment_now(monkeypatch, tmp_path):
    monkeypatch.setenv("SRCFRAMEWORK_TEST_POOL_VALUE", "first")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    with worker_results(_where, [1, 2, 3], workers=2) as results:
        first = list(results)
    # the fork server started with the first pool; the caller's folder and environment change after it
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SRCFRAMEWORK_TEST_POOL_VALUE", "second")
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    with worker_results(_where, [1, 2, 3], workers=2) as results:
        second = list(results)
    servers = {parent for parent, _, _, _ in first + second}
    assert len(servers) == 1 and os.getpid() not in servers  # forked from one server, not from here
    assert {(folder, value, threads) for _, folder, value, threads in second} == {(str(tmp_path), "second", 3)}
    assert {(value, threads) for _, _, value, threads in first} == {("first", 1)}


def test_the_allennlp_plugin_module_sets_up_workers():
    import srcframework.allennlp_plugin  # noqa: F401
    from srcframework import compat
    from srcframework.common.worker_pool import WORKER_SETUP
    from srcframework.plugins.manager import load_plugins

    assert compat.apply in WORKER_SETUP and load_plugins in WORKER_SETUP


def _report_and_wait(folder):
    """Writes this worker's pid into `folder`, then waits for good."""
    import time

    with open(os.path.join(folder, str(os.getpid())), "w") as handle:
        handle.write("started")
    while True:
        time.sleep(60)


PARENT = """
import sys
from srcframework.common.worker_pool import worker_results
from tests.common.worker_pool_test import _report_and_wait
with worker_results(_report_and_wait, [sys.argv[1]] * 2, workers=2) as results:
    for _ in results:
        pass
"""


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[1])


def running(pid: int) -> bool:
    """Whether process `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in status)
    except FileNotFoundError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc to see which processes run")
def test_workers_end_when_their_parent_is_killed(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    from tests.conftest import ROOT

    import shutil
    import tempfile

    pids = tmp_path / "pids"
    pids.mkdir()
    # the killed parent cannot remove the fork server's socket folder: it is left in `scratch`, short
    # enough a path for the socket (a TMPDIR under pytest's folders would be too deep: spawned workers)
    scratch = tempfile.mkdtemp(prefix="pool-")
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(pids)], cwd=ROOT,
                              env=dict(os.environ, OMP_NUM_THREADS="1", TMPDIR=scratch))
    try:
        for _ in range(3000):  # until both workers have started (a bound, so a broken pool cannot hang the suite)
            if len(os.listdir(pids)) == 2 or parent.poll() is not None:
                break
            time.sleep(0.1)
        workers = [int(name) for name in os.listdir(pids)]
        assert len(workers) == 2 and all(running(pid) for pid in workers), parent.poll()
        # and the processes they were forked from (the fork server; the parent itself where they are spawned)
        started_by = {parent_of(pid) for pid in workers} - {parent.pid}
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    processes = workers + sorted(started_by)
    for _ in range(600):
        if not any(running(pid) for pid in processes):
            break
        time.sleep(0.1)
    left = [pid for pid in processes if running(pid)]
    for pid in left:  # leave nothing behind, whatever the result
        os.kill(pid, signal.SIGKILL)
    shutil.rmtree(scratch, ignore_errors=True)
    assert left == []
    assert started_by  # from a fork server, not from the parent


DEEP_TMPDIR = """
import os, sys
from srcframework.common.worker_pool import worker_results
from tests.common.worker_pool_test import _where
with worker_results(_where, [1, 2], workers=2) as results:
    parents = {parent for parent, _, _, _ in results}
print("spawned" if parents == {os.getpid()} else "forked", len(parents))
"""


@pytest.mark.slow
def test_a_tmpdir_too_deep_for_the_fork_servers_socket_gives_spawned_workers(tmp_path):
    import subprocess
    import sys

    from srcframework.common.worker_pool import SOCKET_PATH_BYTES
    from tests.conftest import ROOT

    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    assert len(str(deep)) > SOCKET_PATH_BYTES
    out = subprocess.run([sys.executable, "-c", DEEP_TMPDIR], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, OMP_NUM_THREADS="1", TMPDIR=str(deep)))
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["spawned", "1"]


def _sleep_then_pid(seconds):
    import time

    time.sleep(seconds)
    return os.getpid()


CTRL_C_WHILE_THE_SERVER_IMPORTS = """
import os, signal, sys, threading, time
from multiprocessing import forkserver
from srcframework.common.worker_pool import worker_results
from tests.common.worker_pool_test import _sleep_then_pid
assert signal.getsignal(signal.SIGINT) is signal.default_int_handler, "started with Ctrl-C ignored"
sent = []

def ctrl_c_once_the_server_is_launched():
    # not before: Ctrl-C is ignored for the moment the server is launched (it must start ignoring
    # it), until the caller's own handler is back
    while (getattr(forkserver._forkserver, "_forkserver_pid", None) is None
           or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        time.sleep(0.01)
    time.sleep(0.5)
    sent.append((time.time(), signal.getsignal(signal.SIGINT)))
    os.kill(os.getpid(), signal.SIGINT)

threading.Thread(target=ctrl_c_once_the_server_is_launched, daemon=True).start()
try:
    with worker_results(_sleep_then_pid, [0, 0], workers=2) as results:
        list(results)
    print("not interrupted; Ctrl-C sent:", sent)
except KeyboardInterrupt:
    print("interrupted after", round(time.time() - sent[0][0], 1))
"""


@pytest.mark.slow
@pytest.mark.skipif("forkserver" not in __import__("multiprocessing").get_all_start_methods(),
                    reason="no fork server on this platform: workers are spawned")
def test_ctrl_c_while_the_first_pools_server_imports_stops_the_caller_at_once():
    import subprocess
    import signal
    import sys
    import tempfile

    from tests.conftest import ROOT

    with tempfile.TemporaryDirectory(prefix="pool-") as scratch:
        # started as from a terminal, with Ctrl-C's default action whatever the test process has
        out = subprocess.run([sys.executable, "-c", CTRL_C_WHILE_THE_SERVER_IMPORTS], cwd=ROOT, capture_output=True,
                             text=True, timeout=120, env=dict(os.environ, OMP_NUM_THREADS="1", TMPDIR=scratch),
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert out.returncode == 0, out.stderr[-2000:]
    words = out.stdout.split()
    assert words[:2] == ["interrupted", "after"] and float(words[2]) < 2.5, out.stdout  # the server's imports take ~5 s
