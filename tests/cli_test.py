"""The `allennlp` command line on the tiny fixture: train, evaluate, predict, squad-eval."""
import json

import pytest

from tests.conftest import FIXTURES, allennlp_process, run_allennlp


def allennlp(*arguments, cwd=None):
    done = run_allennlp(*arguments, **({"cwd": cwd} if cwd else {}))
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_train_evaluate_predict_squad_eval(tmp_path):
    run_dir = tmp_path / "run"
    allennlp("train", str(FIXTURES / "bidaf_tiny.jsonnet"), "-s", str(run_dir))
    archive = run_dir / "model.tar.gz"
    assert archive.exists()
    data = str(FIXTURES / "squad_tiny.json")
    metrics_file = tmp_path / "metrics.json"
    allennlp("evaluate", str(archive), data, "--output-file", str(metrics_file),
             "--include-package", "srcframework.allennlp_plugin", cwd=tmp_path)
    metrics = json.loads(metrics_file.read_text())
    official = tmp_path / "predictions.json"
    allennlp("predict", str(archive), data, "--use-dataset-reader", "--predictor", "span_qa", "--silent",
             "--output-file", str(tmp_path / "predictions.jsonl"),
             "--predictor-args", json.dumps({"official_predictions_file": str(official)}),
             "--include-package", "srcframework.allennlp_plugin", cwd=tmp_path)
    predictions = json.loads(official.read_text())
    assert len(predictions) == 9
    lines = [json.loads(l) for l in (tmp_path / "predictions.jsonl").read_text().splitlines()]
    assert {l["id"]: l["best_span_str"] for l in lines} == predictions
    scored = json.loads(allennlp("squad-eval", data, str(official)).stdout)
    assert abs(scored["exact_match"] - 100 * metrics["em"]) < 1e-6
    assert abs(scored["f1"] - 100 * metrics["f1"]) < 1e-6


@pytest.mark.slow
def test_help_lists_squad_eval():
    """A process of its own: from the repository root, `.allennlp_plugins` finds srcframework's
    subcommands without flags."""
    done = allennlp_process("--help")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "squad-eval" in done.stdout
