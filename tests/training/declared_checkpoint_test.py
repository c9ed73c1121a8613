"""`declared_checkpoint`: model.tar.gz holds the declared epoch's weights, and the archive carries
a record of what the run did."""
import copy
import json
import tarfile

import pytest
import torch
from allennlp.commands.train import train_model
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError

import _jsonnet
from srcframework.training.declared_checkpoint import DeclaredCheckpointCallback
from tests.conftest import FIXTURES


def config(rule, epochs=3):
    c = json.loads(_jsonnet.evaluate_file(str(FIXTURES / "bidaf_tiny.jsonnet")))
    c["trainer"]["num_epochs"] = epochs
    c["trainer"]["callbacks"] = [{"type": "declared_checkpoint", "epoch": rule}]
    c["include_in_archive"] = ["training_record.json"]
    return copy.deepcopy(c)


def archived_weights(archive):
    with tarfile.open(archive) as tar:
        return torch.load(tar.extractfile("weights.th"), map_location="cpu")


def test_last_archives_the_last_epoch_and_records_the_run(tmp_path):
    run = tmp_path / "run"
    train_model(Params(config("last")), str(run))
    last = torch.load(run / "model_state_e3_b0.th", map_location="cpu")
    weights = archived_weights(run / "model.tar.gz")
    assert all(torch.equal(last[k], weights[k]) for k in last)
    with tarfile.open(run / "model.tar.gz") as tar:
        record = json.load(tar.extractfile("training_record.json"))
    assert record["checkpoint"] == "last" and record["epoch"] == 3 and record["epochs"] == 3
    assert record["instances_per_epoch"] == {"1": 9, "2": 9, "3": 9}  # the 9 questions of squad_tiny
    assert record["updates_per_epoch"] == {"1": 3, "2": 3, "3": 3} and record["updates"] == 9
    assert set(record["validation_per_epoch"]) == {"1", "2", "3"} and record["validation_metric"] == ["f1"]
    assert record["vocabulary"]["tokens"] > 10
    machine = record["machine"]  # what, beside config and seeds, decides the floating-point results
    assert machine["torch"] == torch.__version__ and machine["cpu_capability"] == torch.backends.cpu.get_cpu_capability()
    assert machine["threads_per_epoch"] == {str(e): [torch.get_num_threads()] for e in (1, 2, 3)}
    assert machine["cpu_per_epoch"] == {str(e): machine["cpu"] for e in (1, 2, 3)}
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["declared_checkpoint"] == "last" and metrics["declared_epoch"] == 3


def test_best_keeps_allennlps_rule_and_says_which_epoch(tmp_path):
    run = tmp_path / "run"
    train_model(Params(config("best")), str(run))
    record = json.loads((run / "training_record.json").read_text())
    metrics = json.loads((run / "metrics.json").read_text())
    assert record["checkpoint"] == "best" and record["epoch"] == metrics["best_epoch"] + 1


def test_an_unknown_rule_is_one_clear_error(tmp_path):
    with pytest.raises(ConfigurationError, match="epoch must be one of last, best"):
        DeclaredCheckpointCallback(str(tmp_path), epoch="final")


def test_a_training_resumed_on_another_machine_records_each_epochs_cpu(tmp_path, monkeypatch):
    """The CPU of each epoch is part of the callback's state (kept by --recover), so a training that
    went on on another machine says which epochs ran where."""
    import srcframework.training.declared_checkpoint as declared

    before = DeclaredCheckpointCallback(str(tmp_path))
    monkeypatch.setattr(declared, "machine", lambda: {"torch": torch.__version__, "cpu": "CPU one", "cpu_capability": None})
    batch = [{"metadata": [{}, {}]}]
    before.on_batch(None, batch, [], {}, epoch=0, batch_number=1, is_training=True)
    after = DeclaredCheckpointCallback(str(tmp_path))
    after.load_state_dict(json.loads(json.dumps(before.state_dict())))  # as a checkpoint carries it
    monkeypatch.setattr(declared, "machine", lambda: {"torch": torch.__version__, "cpu": "CPU two", "cpu_capability": None})
    after.on_batch(None, batch, [], {}, epoch=0, batch_number=2, is_training=True)  # the rest of epoch 1
    after.on_batch(None, batch, [], {}, epoch=1, batch_number=1, is_training=True)
    assert after.cpus == {"1": "CPU one", "2": "CPU two"} and after.instances == {"1": 4, "2": 2}
