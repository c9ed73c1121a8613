"""`benchmarks/train_throughput.py` (what `make bench` runs) end to end on two tiny batches of the
fixture: allennlp-models' BiDAF, ours and ours with training_autocast bfloat16 (`--bf16`, as `make
bench` runs it), each in its own process."""
import json
import subprocess
import sys

import pytest

from tests.bench_site import bench_env
from tests.conftest import FIXTURES, ROOT


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
    where = runs[0]["machine"]
    assert f"machine: {where['cpu']}, {where['cores']} cores, torch {where['torch']}" in done.stdout
