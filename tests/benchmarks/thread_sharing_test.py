"""`benchmarks/thread_sharing.py` (`make bench-threads`): its setups, table and verdict, and its
smoke run end to end (the tiny fixture, the shipped setup alone and beside one CPU-bound job)."""
import importlib.util
import json
import subprocess
import sys

import pytest

from tests.conftest import FIXTURES, ROOT

_spec = importlib.util.spec_from_file_location("thread_sharing", ROOT / "benchmarks" / "thread_sharing.py")
thread_sharing = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(thread_sharing)


def test_each_setup_sets_the_threads_and_wait_policy_of_the_training_process(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    cores = str(thread_sharing.cores())
    found = {setup: thread_sharing.environment(setup) for setup in thread_sharing.SETUPS}
    assert [(env.get("OMP_NUM_THREADS"), env.get("OMP_WAIT_POLICY")) for env in found.values()] == [
        (None, None), ("1", None), (cores, None), (cores, "PASSIVE"), (None, None)]


def test_the_training_config_is_timed_without_validation_and_keeps_the_model():
    config = thread_sharing.training_config(str(ROOT / "training_configs" / "bidaf_cpu_scale.jsonnet"), "free", 6,
                                            limit_data=True)
    callbacks = [c["type"] for c in config["trainer"]["callbacks"]]
    assert callbacks.count("torch_threads") == 1 and callbacks[-1] == "thread_sharing_timer"
    assert config["validation_data_path"] is None and "validation_metric" not in config["trainer"]
    assert config["dataset_reader"]["max_instances"] == 7 * 20 == config["vocabulary"]["reader"]["max_instances"]
    assert config["model"]["context_encoder"]["encoder"]["hidden_size"] == 100
    before = thread_sharing.training_config(str(FIXTURES / "bidaf_tiny.jsonnet"), "default", 3, limit_data=False)
    assert [c["type"] for c in before["trainer"]["callbacks"]] == ["thread_sharing_timer"]
    assert "max_instances" not in before["dataset_reader"]


def test_table_and_verdict_give_the_ratios_to_alone():
    results = [
        {"setup": "default", "others": 0, "s_per_batch": 0.4, "threads": 2},
        {"setup": "default", "others": 1, "s_per_batch": 4.0, "threads": 2},
        {"setup": "free", "others": 0, "s_per_batch": 0.4, "threads": 2},
        {"setup": "free", "others": 1, "s_per_batch": 0.6, "threads": 1},
    ]
    lines = thread_sharing.table(results, [0, 1]).splitlines()
    assert [cell.strip() for cell in lines[0].strip("|").split("|")] == [
        "setup", "threads", "alone s/batch", "beside 1 s/batch", "beside 1 / alone", "alone / default alone"]
    assert [cell.strip() for cell in lines[2].strip("|").split("|")] == ["default", "2/2", "0.400", "4.000", "10.00", "1.00"]
    assert [cell.strip() for cell in lines[3].strip("|").split("|")] == ["free", "2/1", "0.400", "0.600", "1.50", "1.00"]
    assert thread_sharing.verdict(results) == [
        "before (default): beside one job 10.00x the time a batch takes alone (at most 2.5 asked)",
        "now (free): beside one job 1.50x the time a batch takes alone (at most 2.5 asked)",
        "alone, free / default: 1.00 (no slower than before: at most about 1)",
    ]


@pytest.mark.slow
def test_the_smoke_run(tmp_path):
    out = tmp_path / "runs.json"
    done = subprocess.run([sys.executable, "benchmarks/thread_sharing.py", "--smoke", "--json", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert "now (free): beside one job" in done.stdout
    runs = json.loads(out.read_text())["runs"]
    assert [(run["setup"], run["others"]) for run in runs] == [("free", 0), ("free", 1)]
    for run in runs:
        assert run["batches"] == 2 and run["s_per_batch"] > 0 and 1 <= run["threads"] <= thread_sharing.cores()
