"""`benchmarks/train_throughput.py` (what `make bench` runs) end to end on two tiny batches of the
fixture: allennlp-models' BiDAF, ours and ours with training_autocast bfloat16 (`--bf16`, as `make
bench` runs it), each in its own process."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

from tests.bench_site import bench_env
from tests.conftest import FIXTURES, ROOT

_spec = importlib.util.spec_from_file_location("train_throughput", ROOT / "benchmarks" / "train_throughput.py")
train_throughput = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(train_throughput)


@pytest.mark.slow
def test_train_throughput_runs_on_two_tiny_batches(tmp_path):
    out = tmp_path / "runs.json"
    command = [sys.executable, "benchmarks/train_throughput.py", "--squad", str(FIXTURES / "squad_tiny.json"),
               "--exclude-from", "", "--batches", "2", "--batch-size", "2", "--warmup", "1", "--repeats", "1",
               "--bf16", "--json", str(out)]
    done = subprocess.run(command, cwd=ROOT, env=bench_env(), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert "throughput ratio ours/baseline:" in done.stdout
    assert "throughput ratio ours-bf16/baseline:" in done.stdout
    runs = json.loads(out.read_text())["runs"]
    assert [run["model"] for run in runs] == ["baseline", "ours", "ours-bf16"]
    for run in runs:
        assert run["examples"] == 4 and run["examples_per_s"] > 0 and run["peak_rss_mb"] > 0
        assert run["machine"]["torch"] and run["machine"]["cores"] >= 1
        assert run["machine"]["allocator"] == "glibc"  # the default: nothing preloaded
    where = runs[0]["machine"]
    assert f"machine: {where['cpu']}, {where['cores']} cores, torch {where['torch']}" in done.stdout
    assert "allocator: glibc" in done.stdout.splitlines()  # and no setting of its own in the tests' environment
    # every model's process under the cap srcframework's plugin sets (or the environment's own capacity)
    capacity = bench_env().get("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "128")
    assert {run["machine"]["onednn_primitive_cache"] for run in runs} == {capacity}
    assert f"oneDNN primitive cache: {capacity}" in done.stdout.splitlines()


def test_the_onednn_cache_option_sets_or_clears_the_capacity_of_the_child_processes():
    assert train_throughput.onednn_env({"A": "1"}, "srcframework") == {"A": "1", "ONEDNN_PRIMITIVE_CACHE_CAPACITY": "128"}
    assert train_throughput.onednn_env({"ONEDNN_PRIMITIVE_CACHE_CAPACITY": "64"}, "srcframework")[
        "ONEDNN_PRIMITIVE_CACHE_CAPACITY"] == "64"
    assert train_throughput.onednn_env({"A": "1", "ONEDNN_PRIMITIVE_CACHE_CAPACITY": "128"}, "library") == {"A": "1"}


def allocator_of_a_process(env: dict) -> str:
    """What `allocator_in_use` says in a fresh interpreter started with `env` added."""
    probe = ("import importlib.util as u; s = u.spec_from_file_location('t', 'benchmarks/train_throughput.py'); "
             "m = u.module_from_spec(s); s.loader.exec_module(m); print(m.allocator_in_use())")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_a_process_given_the_jemalloc_environment_runs_on_jemalloc():
    assert train_throughput.allocator_env("glibc") == {}
    env = {"LD_PRELOAD": "", "MALLOC_CONF": ""}
    assert allocator_of_a_process(env) == "glibc"
    try:
        env = train_throughput.allocator_env("jemalloc")
    except SystemExit as stop:  # a machine without libjemalloc2: one line that says how to get it
        assert "--allocator jemalloc: libjemalloc.so.2 is in none of" in str(stop)
        assert str(stop).endswith("(Debian: apt-get install libjemalloc2)")
        return
    assert env["MALLOC_CONF"] == "dirty_decay_ms:-1,muzzy_decay_ms:-1" and env["LD_PRELOAD"].endswith("/libjemalloc.so.2")
    assert allocator_of_a_process(env) == "jemalloc"


def test_the_allocator_settings_of_the_environment_are_recorded(monkeypatch):
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.malloc.mmap_max=0")
    monkeypatch.delenv("MALLOC_CONF", raising=False)
    assert train_throughput.machine()["allocator_settings"] == {"GLIBC_TUNABLES": "glibc.malloc.mmap_max=0"}
