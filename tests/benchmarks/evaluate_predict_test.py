"""`benchmarks/evaluate_predict.py --quick` end to end on the tiny fixture: both archives built, `allennlp
evaluate`, `allennlp predict` and `predict_json` of each model in processes of their own (forked from one
per model that made its imports), and the three tables with their ratios (no timing is asserted)."""
import json
import subprocess
import sys

import pytest

from tests.bench_site import bench_env
from tests.conftest import FIXTURES, ROOT

BASELINE_ROW = "| allennlp-models 2.10.1 `bidaf` (baseline) |"
OUR_ROW = "| srcframework `span_qa` BiDAF |"


@pytest.mark.slow
def test_evaluate_predict_runs_on_the_tiny_fixture(tmp_path):
    squad = str(FIXTURES / "squad_tiny.json")
    out = tmp_path / "figures.json"
    command = [sys.executable, "benchmarks/evaluate_predict.py", "--squad", squad, "--vocab-from", squad,
               "--questions", "6", "--latency-questions", "4", "--warmup", "2", "--batch-size", "4", "--quick",
               "--json", str(out)]
    env = dict(bench_env(), TMPDIR=str(tmp_path))  # the archives' temporary folder under tmp_path
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    lines = done.stdout.splitlines()
    assert sum(line.startswith(BASELINE_ROW) for line in lines) == 3
    assert sum(line.startswith(OUR_ROW) for line in lines) == 3
    for ratio in ("evaluate throughput ratio ours/baseline:", "evaluate peak memory ratio ours/baseline:",
                  "predict throughput ratio ours/baseline:", "predict peak memory ratio ours/baseline:",
                  "latency ratio baseline/ours: p50"):
        assert sum(line.startswith(ratio) for line in lines) == 1, ratio

    figures = json.loads(out.read_text())
    assert figures["questions"] == 6
    assert figures["archives"]["baseline"]["parameters"] > figures["archives"]["ours"]["parameters"] > 0
    for part in ("evaluate", "predict"):
        assert set(figures[part]["runs"]) == {"baseline", "ours"}
        assert figures[part]["ratios"]["throughput_whole"] > 0 and figures[part]["ratios"]["peak_rss"] > 0
        for run in figures[part]["runs"].values():
            assert run["seconds"] > 0 and run["startup_seconds"] > 0 and run["peak_rss_mb"] > 0
    assert all(run["lines"] == 6 for run in figures["predict"]["runs"].values())
    assert "em" in figures["evaluate"]["runs"]["ours"]["metrics"]
    latency = figures["latency"]
    assert latency["runs"]["baseline"]["predictor"] == "ReadingComprehensionPredictor"
    assert latency["runs"]["ours"]["predictor"] == "SpanQAPredictor"
    for run in latency["runs"].values():
        assert run["questions"] == 4 and 0 < run["p50_ms"] <= run["p95_ms"]
    assert latency["ratios"]["p50"] > 0 and latency["ratios"]["p95"] > 0
