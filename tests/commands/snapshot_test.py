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


def test_a_jobs_journals_saved_listed_and_restored(tmp_path):
    folder = tmp_path / "snapshots"
    output = tmp_path / "noisy" / "train_asr.json"
    output.parent.mkdir()
    journal = output.parent / "train_asr.json.journal-0-of-1.jsonl"
    journal.write_text('{"key": "k"}\n{"id": "q1"}\n{"id": "q2"}\n')
    saved = run_allennlp("snapshot", "--folder", folder, "save", output, "--name", "asr")
    assert saved.returncode == 0, saved.stderr[-2000:]
    size = json.loads((folder / "asr.json").read_text())["size"]
    assert saved.stdout.splitlines()[0] == f"saved asr: journal {output}, 3 journal lines, {size / 1e6:.1f} MB"
    listed = run_allennlp("snapshot", "--folder", folder, "list")
    assert listed.returncode == 0 and listed.stdout == f"asr: journal {output}, 3 journal lines, {size / 1e6:.1f} MB\n"
    journal.unlink()
    restored = run_allennlp("snapshot", "--folder", folder, "restore", output)
    assert restored.returncode == 0, restored.stderr[-2000:]
    assert restored.stdout == f"restored asr: 3 journal lines beside {output}; run its command again to continue\n"
    assert journal.read_text().count("\n") == 3
    # restored elsewhere (--to): the journals take the name of the other output
    elsewhere = tmp_path / "other" / "dev_asr.json"
    moved = run_allennlp("snapshot", "--folder", folder, "restore", output, "--to", elsewhere)
    assert moved.returncode == 0 and f"beside {elsewhere};" in moved.stdout
    assert (elsewhere.parent / "dev_asr.json.journal-0-of-1.jsonl").read_text() == journal.read_text()
