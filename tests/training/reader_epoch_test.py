"""`reader_epoch`: a run stopped and resumed with --recover trains on exactly the instances that
the same run straight through trains on, epoch by epoch."""
import copy
import json
import os
from collections import defaultdict

import pytest
from allennlp.commands.train import train_model
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.training.callbacks.callback import TrainerCallback

import _jsonnet
from tests.conftest import FIXTURES

STOP = "SRCFRAMEWORK_TEST_STOP_AFTER_EPOCH"


@TrainerCallback.register("record_questions_for_test")
class RecordQuestions(TrainerCallback):
    """Appends each trained batch's (epoch, id, question) to questions.jsonl; raises at the end of
    the epoch that the environment variable names, as a killed run would stop."""

    def on_batch(self, trainer, batch_inputs, batch_outputs, batch_metrics, epoch, batch_number, is_training, is_primary=True, **kwargs):
        if is_training:
            with open(os.path.join(self.serialization_dir, "questions.jsonl"), "a") as f:
                for batch in batch_inputs:
                    for m in batch["metadata"]:
                        f.write(json.dumps([epoch, m["id"], m["question"]]) + "\n")

    def on_epoch(self, trainer, metrics, epoch, is_primary=True, **kwargs):
        if os.environ.get(STOP) == str(epoch):
            raise RuntimeError("stopped for the test")


def noisy_config(epochs=4, callbacks=True, max_in_memory=50):
    config = json.loads(_jsonnet.evaluate_file(str(FIXTURES / "bidaf_tiny.jsonnet")))
    config["dataset_reader"].update(
        question_noise={"type": "keyboard", "word_probability": 0.5},
        keep_clean=True,
        noise_schedule=[{"from_epoch": 0, "share": 0.5}, {"from_epoch": 2, "share": 1.0}],
        noise_seed=3,
    )
    clean = {k: v for k, v in config["dataset_reader"].items() if k not in ("question_noise", "keep_clean", "noise_schedule", "noise_seed")}
    config["validation_dataset_reader"] = copy.deepcopy(clean)
    config["data_loader"] = {"batch_size": 3, "max_instances_in_memory": max_in_memory}
    config["trainer"]["num_epochs"] = epochs
    config["trainer"]["callbacks"] = [{"type": "record_questions_for_test"}] + ([{"type": "reader_epoch"}, {"type": "declared_checkpoint"}] if callbacks else [])
    return copy.deepcopy(config)


def by_epoch(folder, name="questions.jsonl"):
    epochs = defaultdict(list)
    with open(os.path.join(folder, name)) as f:
        for line in f:
            epoch, qid, question = json.loads(line)
            epochs[epoch].append((qid, question))
    return {epoch: sorted(rows) for epoch, rows in epochs.items()}


def straight_and_resumed(tmp_path, monkeypatch, config, stop_after: int):
    """Trains `config()` straight through, and again stopped after epoch `stop_after` and resumed
    with --recover (the questions read before the stop in before_the_stop.jsonl): the folders."""
    straight = tmp_path / "straight"
    train_model(Params(config()), str(straight))
    resumed = tmp_path / "resumed"
    monkeypatch.setenv(STOP, str(stop_after))
    with pytest.raises(RuntimeError, match="stopped for the test"):
        train_model(Params(config()), str(resumed))
    monkeypatch.delenv(STOP)
    os.rename(resumed / "questions.jsonl", resumed / "before_the_stop.jsonl")
    train_model(Params(config()), str(resumed), recover=True)
    return straight, resumed


def test_a_resumed_run_reads_what_a_straight_run_reads(tmp_path, monkeypatch):
    straight, resumed = straight_and_resumed(tmp_path, monkeypatch, noisy_config, stop_after=1)

    want, before, after = by_epoch(straight), by_epoch(resumed, "before_the_stop.jsonl"), by_epoch(resumed)
    assert sorted(want) == [0, 1, 2, 3] and sorted(before) == [0, 1] and sorted(after) == [1, 2, 3]
    assert before[0] == want[0] and before[1] == want[1]
    for epoch in (1, 2, 3):  # epoch 1 was not checkpointed before the stop: it is trained again
        assert after[epoch] == want[epoch], epoch
    # the noise changes from epoch to epoch, and the schedule's share grows at epoch 2
    assert want[0] != want[1]
    assert len(want[2]) > len(want[1])
    record = json.loads((resumed / "training_record.json").read_text())
    assert [record["instances_per_epoch"][str(e)] for e in range(1, 5)] == [len(want[e]) for e in range(4)]
    assert record["epoch"] == 4 and record["checkpoint"] == "last"


def test_without_the_callback_a_resumed_run_reads_other_noise(tmp_path, monkeypatch):
    """What the callback fixes: without it, AllenNLP's re-read of the skipped epochs is what keeps
    the read count in step, and that count also counts the vocabulary's read."""
    straight = tmp_path / "straight"
    train_model(Params(noisy_config(epochs=2, callbacks=False)), str(straight))
    with_callback = tmp_path / "with"
    train_model(Params(noisy_config(epochs=2)), str(with_callback))
    assert by_epoch(straight)[0] != by_epoch(with_callback)[0]


def test_a_loader_that_keeps_every_instance_is_refused(tmp_path):
    config = noisy_config(epochs=1, max_in_memory=None)
    del config["data_loader"]["max_instances_in_memory"]
    with pytest.raises(ConfigurationError, match="max_instances_in_memory"):
        train_model(Params(config), str(tmp_path / "run"))


def test_a_read_that_spans_epochs_keeps_its_epoch_when_resumed(tmp_path, monkeypatch):
    """With `batches_per_epoch` smaller than the data, a read goes on into the next epochs; a
    resumed run starts each read in the same epoch as a straight run, so the noise is the same."""

    def config():
        c = noisy_config()
        c["data_loader"]["batches_per_epoch"] = 2  # 6 of the 13-18 instances a read yields
        return c

    straight, resumed = straight_and_resumed(tmp_path, monkeypatch, config, stop_after=2)

    want, after = by_epoch(straight), by_epoch(resumed)
    assert sorted(after) == [2, 3]
    for epoch in (2, 3):  # epoch 2 goes on with a read that began in epoch 0 or 1
        assert after[epoch] == want[epoch], epoch


def dropout_config(callbacks):
    """The tiny BiDAF with dropout and shuffled batches: a run that draws from the random generators
    in every epoch; three epochs, each epoch's checkpoint kept."""
    config = json.loads(_jsonnet.evaluate_file(str(FIXTURES / "bidaf_tiny.jsonnet")))
    config["model"]["context_encoder"]["dropout"] = 0.3
    config["model"]["span_head"]["dropout"] = 0.3
    config["data_loader"] = {"batch_size": 3, "shuffle": True}
    config["trainer"]["num_epochs"] = 3
    config["trainer"]["checkpointer"] = {"keep_most_recent_by_count": 3}
    config["trainer"]["callbacks"] = [{"type": "reader_epoch"}] if callbacks else []
    return copy.deepcopy(config)


def cut_back_to_the_first_epoch(straight, folder):
    """A copy of a three-epoch run as it stood after its first epoch: what a stop there leaves."""
    import shutil

    run = folder / "run"
    shutil.copytree(straight, run)
    for name in ("model_state_e2_b0.th", "training_state_e2_b0.th", "model_state_e3_b0.th", "training_state_e3_b0.th",
                 "metrics_epoch_1.json", "metrics_epoch_2.json", "metrics.json", "model.tar.gz"):
        (run / name).unlink()
    shutil.copyfile(run / "model_state_e1_b0.th", run / "best.th")
    return run


@pytest.mark.parametrize("callbacks", [True, False], ids=["with the callback", "without"])
def test_a_resumed_run_with_dropout_ends_with_the_straight_runs_weights(tmp_path, callbacks):
    """AllenNLP seeds the random generators afresh when a run starts: without the callback, the
    resumed run draws other dropout masks and batch orders, and ends elsewhere."""
    import torch

    straight = tmp_path / "straight"
    train_model(Params(dropout_config(callbacks)), str(straight))
    run = cut_back_to_the_first_epoch(straight, tmp_path)
    train_model(Params(dropout_config(callbacks)), str(run), recover=True)
    ours = torch.load(run / "model_state_e3_b0.th", map_location="cpu")
    theirs = torch.load(straight / "model_state_e3_b0.th", map_location="cpu")
    same = all(torch.equal(ours[key], theirs[key]) for key in theirs)
    assert same is callbacks
