"""AllenNLP's distributed training (`distributed: {cuda_devices: [...]}`) with srcframework's
reader, model and metric: two CPU worker processes over gloo stand in for two GPUs."""
import json

import pytest
from allennlp.commands.train import train_model
from allennlp.common import Params
from allennlp.models.archival import load_archive

from srcframework.metrics.squad import exact_match_score, f1_score, metric_max_over_ground_truths
from tests.conftest import FIXTURES


@pytest.mark.slow
def test_two_cpu_workers_train_the_tiny_bidaf(tmp_path):
    params = Params.from_file(str(FIXTURES / "bidaf_tiny.jsonnet"))
    params["distributed"] = {"cuda_devices": [-1, -1]}
    serialization_dir = tmp_path / "run"
    assert train_model(params, str(serialization_dir), include_package=["srcframework"]) is None  # distributed
    assert (serialization_dir / "model.tar.gz").is_file()
    assert (serialization_dir / "out_worker0.log").is_file() and (serialization_dir / "out_worker1.log").is_file()
    metrics = json.loads((serialization_dir / "metrics.json").read_text())
    # the fixture trains 2 epochs; "epoch" is the last one's index
    assert metrics["epoch"] == 1 and metrics["training_loss"] > 0
    assert "peak_worker_1_memory_MB" in metrics  # both workers reported
    # validation F1 was summed over both workers' halves of the data: it equals the archived model's
    # F1 on the whole validation file
    archive = load_archive(str(serialization_dir / "model.tar.gz"))
    archive.model.eval()
    reader = archive.validation_dataset_reader
    instances = list(reader.read(str(FIXTURES / "squad_tiny.json")))
    outputs = archive.model.forward_on_instances(instances)
    em = [metric_max_over_ground_truths(exact_match_score, o["best_span_str"], o["answers"]) for o in outputs]
    f1 = [metric_max_over_ground_truths(f1_score, o["best_span_str"], o["answers"]) for o in outputs]
    assert len(outputs) == 9
    assert metrics["best_validation_f1"] == pytest.approx(sum(f1) / len(f1))
    assert metrics["best_validation_em"] == pytest.approx(sum(em) / len(em))
