"""`allennlp snapshot list | save | restore | remove` from the command line: a tiny training's first
epoch saved, listed, restored into an emptied folder, and removed; bad names in one line."""
import json
import shutil

import pytest
from allennlp.commands.train import train_model_from_file

from tests.conftest import FIXTURES, run_allennlp


@pytest.fixture(scope="module")
def one_epoch(tmp_path_factory):
    run = tmp_path_factory.mktemp("snapshot_cli") / "run"
    train_model_from_file(str(FIXTURES / "bidaf_tiny.jsonnet"), str(run),
                          overrides=json.dumps({"trainer.num_epochs": 1}))
    for name in ("metrics.json", "model.tar.gz"):  # as a training stopped after its first epoch leaves it
        (run / name).unlink()
    return run


def test_save_list_restore_remove(one_epoch, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(one_epoch, run)
    folder = tmp_path / "snapshots"

    empty = run_allennlp("snapshot", "--folder", folder, "list")
    assert empty.returncode == 0 and empty.stdout == f"no snapshots in {folder}\n"

    saved = run_allennlp("snapshot", "--folder", folder, "save", run, "--name", "tiny")
    assert saved.returncode == 0, saved.stderr
    first, second = saved.stdout.splitlines()[:2]
    assert first.startswith("saved ") and "tiny" in first
    assert "commit models/snapshots/tiny.tar.gz and .json" in second
    assert (folder / "tiny.json").is_file()

    listed = run_allennlp("snapshot", "--folder", folder)  # list is the default action
    assert listed.returncode == 0 and "tiny" in listed.stdout

    kept = run_allennlp("snapshot", "--folder", folder, "restore", run)
    assert kept.returncode == 0 and kept.stdout.startswith(f"kept {run}: it already holds")

    shutil.rmtree(run)
    restored = run_allennlp("snapshot", "--folder", folder, "restore", run)
    assert restored.returncode == 0, restored.stderr
    assert restored.stdout.startswith("restored tiny into ") and "epoch 1; continue with `allennlp train CONFIG -s" in restored.stdout
    assert (run / "model_state_e1_b0.th").is_file()

    removed = run_allennlp("snapshot", "--folder", folder, "remove", run)
    assert removed.returncode == 0 and removed.stdout == "removed the snapshot tiny (commit its removal)\n"
    assert not (folder / "tiny.json").exists()


def test_nothing_to_restore_or_remove_is_one_line(tmp_path):
    folder, nowhere = tmp_path / "snapshots", tmp_path / "nowhere"
    missing = run_allennlp("snapshot", "--folder", folder, "restore", nowhere)
    assert missing.returncode == 1
    assert missing.stderr.strip().splitlines()[-1].endswith(
        f"no snapshot of {nowhere} in {folder} (allennlp snapshot list shows what there is)")
    quiet = run_allennlp("snapshot", "--folder", folder, "restore", nowhere, "--if-any")
    assert quiet.returncode == 0 and quiet.stdout == f"no snapshot of {nowhere}\n"
    gone = run_allennlp("snapshot", "--folder", folder, "remove", nowhere)
    assert gone.returncode == 1 and gone.stderr.strip().splitlines()[-1].endswith(f"no snapshot of {nowhere}")
