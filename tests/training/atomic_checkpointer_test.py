"""A full disk during training loses nothing: the checkpoint that does not fit is one line naming the
folder and the bytes it needed, no truncated file is left under a checkpoint's name, and `--recover`
resumes from the last good checkpoint and finishes. Shown on a real full disk (a small tmpfs, where
this machine lets a test mount one) and on a disk whose writes fail with ENOSPC (anywhere)."""
import json
import os
import subprocess

import pytest
import torch
from allennlp.training.callbacks.callback import TrainerCallback
from allennlp.training.checkpointer import Checkpointer

from srcframework.training.atomic_checkpointer import AtomicCheckpointer
from tests.common.disk_full_test import NoSpace
from tests.conftest import FIXTURES, run_allennlp

# what the disk does when the second epoch ends, before its checkpoint is written (set by a test)
WHEN_FULL = {"fill": lambda folder: None}


@TrainerCallback.register("disk_full_after_first_epoch")
class DiskFullAfterFirstEpoch(TrainerCallback):
    """Makes the disk full when the second epoch ends (AllenNLP calls `on_epoch` before it saves the
    epoch's checkpoint)."""

    def on_epoch(self, trainer, metrics, epoch: int, is_primary: bool = True, **kwargs) -> None:
        if epoch == 1:
            WHEN_FULL["fill"](self.serialization_dir)


OVERRIDES = json.dumps({"trainer.num_epochs": 2, "trainer.callbacks": [
    {"type": "declared_checkpoint"}, {"type": "disk_full_after_first_epoch"}]})


@pytest.fixture
def tmpfs(tmp_path):
    """A 4 MB tmpfs mounted at tmp_path/disk, or a skip where mounting is not permitted."""
    folder = tmp_path / "disk"
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=True)


def fill(folder: str, leave: int = 16_000) -> None:
    """Fills the file system of `folder` but for `leave` bytes, with a file `filler`."""
    stat = os.statvfs(folder)
    with open(os.path.join(folder, "filler"), "wb") as handle:
        handle.write(b"\0" * max(0, stat.f_bavail * stat.f_frsize - leave))


def assert_stopped_at_the_second_checkpoint(done, run) -> None:
    assert done.returncode == 1, done.stderr[-3000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: no space left on the device of {run}: ") and "bytes needed" in last, done.stderr[-3000:]
    assert "state_e2_b0.th was not written" in last
    assert "Traceback" not in done.stderr
    names = sorted(os.listdir(run))
    assert "model_state_e1_b0.th" in names and "training_state_e1_b0.th" in names
    assert not [name for name in names if "_e2_" in name or name.endswith(".tmp") or name.startswith(".")], names
    for name in names:  # every checkpoint file left is whole
        if name.endswith(".th"):
            torch.load(os.path.join(run, name), map_location="cpu", weights_only=False)


def assert_recovers(run) -> None:
    WHEN_FULL["fill"] = lambda folder: None
    done = run_allennlp("train", FIXTURES / "bidaf_tiny.jsonnet", "-s", run, "-o", OVERRIDES, "--recover")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Could not recover" not in done.stderr
    assert "Recovering from prior training" in done.stdout + done.stderr
    record = json.loads((run / "training_record.json").read_text())
    assert record["instances_per_epoch"] == {"1": 9, "2": 9}  # the first epoch came from its checkpoint, not again
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["epoch"] == 1, sorted(metrics)  # the second epoch (AllenNLP counts from 0)
    assert (run / "model.tar.gz").is_file() and (run / "model_state_e2_b0.th").is_file()


@pytest.mark.slow
def test_a_full_tmpfs_keeps_the_last_checkpoint_and_recover_finishes(tmpfs):
    run = tmpfs / "run"
    WHEN_FULL["fill"] = fill
    done = run_allennlp("train", FIXTURES / "bidaf_tiny.jsonnet", "-s", run, "-o", OVERRIDES)
    assert_stopped_at_the_second_checkpoint(done, run)
    os.remove(run / "filler")
    assert_recovers(run)


@pytest.mark.slow
def test_writes_failing_with_enospc_keep_the_last_checkpoint_and_recover_finishes(tmp_path, monkeypatch):
    run = tmp_path / "run"
    real_fdopen = os.fdopen
    WHEN_FULL["fill"] = lambda folder: monkeypatch.setattr(os, "fdopen", lambda *a, **k: NoSpace(real_fdopen(*a, **k)))
    done = run_allennlp("train", FIXTURES / "bidaf_tiny.jsonnet", "-s", run, "-o", OVERRIDES)
    monkeypatch.undo()
    assert_stopped_at_the_second_checkpoint(done, run)
    assert_recovers(run)


def test_the_declared_checkpoint_callback_makes_the_default_checkpointer_atomic(tmp_path):
    from srcframework.training.atomic_checkpointer import make_atomic

    class Trainer:
        pass

    trainer = Trainer()
    trainer._checkpointer = Checkpointer(str(tmp_path), keep_most_recent_by_count=5)
    make_atomic(trainer)
    assert type(trainer._checkpointer) is AtomicCheckpointer and trainer._checkpointer._keep_most_recent_by_count == 5
    assert Checkpointer.by_name("atomic") is AtomicCheckpointer


def test_a_checkpoint_counts_only_with_both_its_files(tmp_path):
    checkpointer = AtomicCheckpointer(str(tmp_path))
    torch.save({}, tmp_path / "model_state_e1_b0.th")
    torch.save({}, tmp_path / "training_state_e1_b0.th")
    torch.save({}, tmp_path / "model_state_e2_b0.th")  # its training state never written
    assert checkpointer.find_latest_checkpoint() == (str(tmp_path / "model_state_e1_b0.th"),
                                                     str(tmp_path / "training_state_e1_b0.th"))
