"""`allennlp train` stopped by Ctrl-C or SIGTERM ends with one line (where it stopped, how to resume
with --recover); the archive a stopped training leaves is never loaded as a finished model without
a warning; a training that fails or is stopped before its first epoch leaves no folder that blocks
the rerun."""
import json
import logging
import os
import signal
import subprocess
import sys

import pytest
from allennlp.common import Params
from allennlp.commands.train import train_model
from allennlp.common.util import SigTermReceived
from allennlp.models.archival import load_archive
from allennlp.training.callbacks.callback import TrainerCallback

from srcframework.commands import allennlp_train, cli_errors
from srcframework.common.training_runs import stopped_archive_note
from tests.conftest import FIXTURES, ROOT


STOPPING = {"on": True}


@TrainerCallback.register("test_stop_in_epoch")
class StopInEpoch(TrainerCallback):
    """Stops the training at the first training batch of `epoch` (from 0): raises Ctrl-C's
    exception, or sends this process SIGTERM."""

    def __init__(self, serialization_dir: str, epoch: int = 1, how: str = "interrupt") -> None:
        super().__init__(serialization_dir)
        self.epoch, self.how = epoch, how

    def on_batch(self, trainer, batch_inputs, batch_outputs, batch_metrics, epoch, batch_number, is_training,
                 is_primary=True, **kwargs) -> None:
        if is_training and epoch == self.epoch and STOPPING["on"]:
            if self.how == "sigterm":
                os.kill(os.getpid(), signal.SIGTERM)
            raise KeyboardInterrupt


def tiny_params(stop_epoch=None, **trainer) -> Params:
    config = Params.from_file(str(FIXTURES / "bidaf_tiny.jsonnet")).as_dict(quiet=True)
    config["trainer"]["num_epochs"] = 3
    config["trainer"].update(trainer)
    if stop_epoch is not None:
        config["trainer"]["callbacks"] = [{"type": "test_stop_in_epoch", "epoch": stop_epoch}]
    return Params(config)


def test_a_training_stopped_after_an_epoch_says_where_and_how_to_resume(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt) as stopped:
        train_model(tiny_params(stop_epoch=1), str(folder))
    line = getattr(stopped.value, allennlp_train.STOPPED_ATTRIBUTE)
    assert line.startswith(f"stopped by Ctrl-C in epoch 2 of 3 of {folder}: 1 finished epoch is kept, "
                           f"and {folder / 'model.tar.gz'} holds the best of them (epoch 1), not a finished model")
    assert line.endswith(f"resume with: allennlp train {folder / 'config.json'} -s {folder} --recover")
    assert (folder / "model.tar.gz").is_file() and not (folder / "metrics.json").exists()

    capsys.readouterr()
    cli_errors.excepthook(type(stopped.value), stopped.value, stopped.value.__traceback__)
    assert capsys.readouterr().err == line + "\n"

    # the saved config resumes it to its end
    monkeypatch.setitem(STOPPING, "on", False)
    train_model(Params(json.loads((folder / "config.json").read_text())), str(folder), recover=True)
    assert (folder / "metrics.json").is_file() and stopped_archive_note(str(folder / "model.tar.gz")) is None


def test_the_line_repeats_the_command_line_with_recover_instead_of_force(tmp_path):
    argv = ["allennlp", "train", "c.jsonnet", "-s", "runs/a b", "-f", "-o", '{"trainer.num_epochs": 1}']
    assert allennlp_train.same_command_with_recover(argv) == (
        "allennlp train c.jsonnet -s 'runs/a b' -o '{\"trainer.num_epochs\": 1}' --recover")
    assert allennlp_train.same_command_with_recover(["allennlp", "train", "c", "-s", "d", "-r"]) == (
        "allennlp train c -s d -r")


@pytest.fixture(scope="module")
def stopped_archive(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stopped") / "run"
    with pytest.raises(KeyboardInterrupt):
        train_model(tiny_params(stop_epoch=1), str(folder))
    return folder / "model.tar.gz"


def test_loading_a_stopped_trainings_archive_says_so(stopped_archive, caplog):
    with caplog.at_level(logging.WARNING):
        archive = load_archive(str(stopped_archive))
    assert archive.model is not None  # it still loads: only not silently
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    note = next(w for w in warnings if "stopped training" in w)
    assert note.startswith(f"{stopped_archive} is the archive of a stopped training: it holds the best epoch so far")
    assert "--recover" in note and "\n" not in note


def test_a_finished_or_released_archive_loads_without_a_warning(tiny_archive, tmp_path, caplog):
    released = tmp_path / "bidaf.tar.gz"
    released.write_bytes(tiny_archive.read_bytes())
    for path in (tiny_archive, released):
        assert stopped_archive_note(str(path)) is None
    with caplog.at_level(logging.WARNING):
        load_archive(str(tiny_archive))
    assert not [r for r in caplog.records if "stopped training" in r.getMessage()]


def test_the_predictor_of_a_stopped_archive_says_so(stopped_archive, caplog):
    from allennlp.predictors import Predictor

    with caplog.at_level(logging.WARNING):
        Predictor.from_path(str(stopped_archive), "span_qa")
    assert any("is the archive of a stopped training" in r.getMessage() for r in caplog.records)


def test_stopped_before_the_first_epoch_ended_leaves_nothing(tmp_path):
    folder = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt) as stopped:
        train_model(tiny_params(stop_epoch=0), str(folder))
    assert not folder.exists()
    assert getattr(stopped.value, allennlp_train.STOPPED_ATTRIBUTE) == (
        f"stopped by Ctrl-C before the first epoch of {folder} ended: nothing was kept (what it wrote there "
        "is removed); the same command starts again")


def test_a_failed_start_leaves_no_folder_and_the_same_command_starts_again(tmp_path):
    folder = tmp_path / "run"
    params = tiny_params()
    params["train_data_path"] = str(tmp_path / "missing.json")
    with pytest.raises(Exception):
        train_model(params.duplicate(), str(folder))
    assert not folder.exists()
    params["train_data_path"] = str(FIXTURES / "squad_tiny.json")
    params["trainer"]["num_epochs"] = 1
    train_model(params, str(folder))  # no "already exists and is not empty"
    assert (folder / "metrics.json").is_file()


def test_an_empty_folder_made_beforehand_is_kept_empty(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    params = tiny_params()
    params["train_data_path"] = str(tmp_path / "missing.json")
    with pytest.raises(Exception):
        train_model(params, str(folder))
    assert folder.is_dir() and not any(folder.iterdir())


def test_a_failed_recover_keeps_the_folder(stopped_archive):
    folder = stopped_archive.parent
    before = sorted(os.listdir(folder))
    params = Params(json.loads((folder / "config.json").read_text()))
    params["train_data_path"] = str(folder / "missing.json")
    with pytest.raises(Exception):
        train_model(params, str(folder), recover=True)
    assert sorted(os.listdir(folder)) == before


@pytest.mark.slow
def test_sigterm_ends_allennlp_train_with_one_line(tmp_path):
    folder = tmp_path / "run"
    config = tiny_params().as_dict(quiet=True)
    config["trainer"]["callbacks"] = [{"type": "test_stop_in_epoch", "epoch": 1, "how": "sigterm"}]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop(cli_errors.DEBUG_ENV, None)
    done = subprocess.run([sys.executable, "-m", "allennlp", "train", str(path), "-s", str(folder),
                           "--include-package", "tests.commands.allennlp_train_test"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"stopped by SIGTERM in epoch 2 of 3 of {folder}: 1 finished epoch is kept"), done.stderr[-3000:]
    assert last.endswith(f"resume with: allennlp train {path} -s {folder} --include-package "
                         "tests.commands.allennlp_train_test --recover")
