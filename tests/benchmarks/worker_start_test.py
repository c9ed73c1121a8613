"""`benchmarks/worker_start.py`: a pool's start with workers forked from the fork server against
spawned ones, end to end on two pools of two workers (each run checks where its workers came from)."""
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SCRIPT = ROOT / "benchmarks" / "worker_start.py"


@pytest.mark.slow
@pytest.mark.skipif(not __import__("os").path.isdir("/proc"), reason="reads the fork server's CPU time in /proc")
def test_one_run_each_way_prints_both_pools_and_the_ratios():
    out = subprocess.run([sys.executable, str(SCRIPT), "--pools", "2", "--repeats", "1"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert any(line.startswith("run 1 spawn: pool 1 ") and "pool 2 " in line for line in lines)
    assert any(line.startswith("run 1 forkserver: pool 1 ") and "pool 2 " in line for line in lines)
    table = {line.split()[0]: line.split()[1:] for line in lines if line.split()[:1] in (["first"], ["later"])}
    assert set(table) == {"first", "later"}
    for values in table.values():
        spawn, server, ratio = map(float, values[:3])  # printed to 2 decimals, the ratio from the unrounded times
        assert spawn > 0 and server > 0
        assert (spawn - 0.005) / (server + 0.005) - 0.01 <= ratio <= (spawn + 0.005) / max(server - 0.005, 1e-9) + 0.01


def test_fewer_than_two_workers_is_one_line():
    out = subprocess.run([sys.executable, str(SCRIPT), "--workers", "1"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1].endswith("--pools and --repeats at least 1")
