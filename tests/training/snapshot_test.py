"""Snapshots of a training under way: a tiny BiDAF stopped after its first epoch, snapshotted, its
run folder deleted, restored and continued with `--recover`, against the same training straight through."""
import json
import shutil

import pytest
import torch
from allennlp.commands.train import train_model_from_file

from srcframework.common.errors import InputError, InputFileNotFound
from srcframework.training import snapshot
from tests.conftest import FIXTURES

CONFIG = str(FIXTURES / "bidaf_tiny.jsonnet")
# three epochs, every epoch's checkpoint kept, so that a run can be cut back to its first epoch; with
# dropout, shuffled batches and the reader_epoch callback (as the shipped configs), so that the
# continuation draws from the random generators as the straight run does
OVERRIDES = json.dumps({
    "trainer.num_epochs": 3, "trainer.checkpointer": {"keep_most_recent_by_count": 3},
    "model.context_encoder.dropout": 0.3, "model.span_head.dropout": 0.3, "data_loader.shuffle": True,
    "trainer.callbacks": [{"type": "reader_epoch"}],
})
LATER = ["model_state_e2_b0.th", "training_state_e2_b0.th", "model_state_e3_b0.th", "training_state_e3_b0.th",
         "metrics_epoch_1.json", "metrics_epoch_2.json", "metrics.json", "model.tar.gz"]


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """A three-epoch training straight through."""
    run = tmp_path_factory.mktemp("straight") / "run"
    train_model_from_file(CONFIG, str(run), overrides=OVERRIDES)
    return run


def stopped_copy(straight, folder):
    """The straight run as it stood after its first epoch (what a stop there leaves)."""
    run = folder / "run"
    shutil.copytree(straight, run)
    for name in LATER:
        (run / name).unlink()
    shutil.copyfile(run / "model_state_e1_b0.th", run / "best.th")  # the only epoch so far is the best
    return run


def weights(path):
    return torch.load(path, map_location="cpu", weights_only=False)


def test_a_restored_snapshot_continues_as_the_straight_run(straight, tmp_path):
    run = stopped_copy(straight, tmp_path)
    snaps = tmp_path / "snapshots"
    record = snapshot.save(str(run), folder=str(snaps))
    assert record["kind"] == "training" and record["epoch"] == 1 and record["best_is_latest"]
    assert "model_state_e1_b0.th" in record["files"] and "training_state_e1_b0.th" in record["files"]
    assert "metrics_epoch_0.json" in record["files"] and "metrics_epoch_1.json" not in record["files"]
    assert "best.th" not in record["files"] and "out.log" not in record["files"]
    assert record["differs_from_uninterrupted"].startswith("nothing")
    assert json.loads((snaps / f"{record['name']}.json").read_text())["sha256"] == record["sha256"]

    shutil.rmtree(run)  # a new machine: nothing but the repository
    restored = snapshot.restore(str(run), folder=str(snaps))
    assert restored["restored"] and snapshot.epochs_done(str(run)) == 1
    train_model_from_file(CONFIG, str(run), overrides=OVERRIDES, recover=True)

    ours, theirs = weights(run / "model_state_e3_b0.th"), weights(straight / "model_state_e3_b0.th")
    assert ours.keys() == theirs.keys()
    for key in ours:
        assert torch.equal(ours[key], theirs[key]), key
    metrics = json.loads((run / "metrics.json").read_text())
    expected = json.loads((straight / "metrics.json").read_text())
    assert metrics["validation_f1"] == expected["validation_f1"]
    assert metrics["training_loss"] == expected["training_loss"]

    # the folder now holds more than the snapshot: restoring again leaves it alone
    assert snapshot.restore(str(run), folder=str(snaps))["restored"] is False


def test_a_float16_snapshot_is_smaller_and_says_what_differs(straight, tmp_path):
    run = stopped_copy(straight, tmp_path)
    full = snapshot.save(str(run), folder=str(tmp_path / "full"))
    half = snapshot.save(str(run), folder=str(tmp_path / "half"), float16=True)
    assert half["float16"] and half["size"] < full["size"]
    assert "float16" in half["differs_from_uninterrupted"]
    shutil.rmtree(run)
    snapshot.restore(str(run), folder=str(tmp_path / "half"))
    state = weights(run / "model_state_e1_b0.th")
    assert all(value.dtype != torch.float16 for value in state.values())  # back in float32 for the trainer
    train_model_from_file(CONFIG, str(run), overrides=OVERRIDES, recover=True)
    assert (run / "metrics.json").is_file()


def test_refusals(straight, tmp_path):
    with pytest.raises(InputError, match="has finished"):
        snapshot.save(str(straight), folder=str(tmp_path / "s"))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="no finished epoch"):
        snapshot.save(str(empty), folder=str(tmp_path / "s"))
    with pytest.raises(InputFileNotFound, match="no such training folder"):
        snapshot.save(str(tmp_path / "nowhere"), folder=str(tmp_path / "s"))
    run = stopped_copy(straight, tmp_path)
    with pytest.raises(InputError, match="over the 0 MB limit; try --float16"):
        snapshot.save(str(run), folder=str(tmp_path / "s"), max_bytes=1000)
    assert not list((tmp_path / "s").glob("*.tar.gz"))  # nothing left behind
    record = snapshot.save(str(run), folder=str(tmp_path / "s"))
    tarball = tmp_path / "s" / f"{record['name']}.tar.gz"
    tarball.write_bytes(tarball.read_bytes()[:-10])
    shutil.rmtree(run)
    with pytest.raises(InputError, match="does not match the sha256"):
        snapshot.restore(str(run), folder=str(tmp_path / "s"))
    assert snapshot.restore(str(tmp_path / "other"), folder=str(tmp_path / "s")) is None


def test_a_jobs_journals_travel_and_the_job_goes_on(tmp_path):
    output = tmp_path / "noisy" / "train_asr.json"
    output.parent.mkdir()
    journal = output.parent / "train_asr.json.journal-0-of-1.jsonl"
    journal.write_text('{"key": "k"}\n{"id": "q1", "question": "who"}\n')
    record = snapshot.save(str(output), folder=str(tmp_path / "s"))
    assert record["kind"] == "journal" and record["journal_lines"] == 2
    journal.unlink()
    assert snapshot.restore(str(output), folder=str(tmp_path / "s"))["restored"]
    assert journal.read_text() == '{"key": "k"}\n{"id": "q1", "question": "who"}\n'
    # the job went on here after the snapshot: restoring it again keeps the longer journal
    journal.write_text('{"key": "k"}\n{"id": "q1", "question": "who"}\n{"id": "q2", "question": "what"}\n')
    snapshot.restore(str(output), folder=str(tmp_path / "s"))
    assert journal.read_text().count("\n") == 3
    output.write_text("{}")  # the job finished: its output is complete
    with pytest.raises(InputError, match="is complete"):
        snapshot.save(str(output), folder=str(tmp_path / "s"))
    assert snapshot.restore(str(output), folder=str(tmp_path / "s"))["restored"] is False
    assert snapshot.remove(str(output), folder=str(tmp_path / "s")) == record["name"]
    assert snapshot.records(str(tmp_path / "s")) == []


def test_same_state_same_bytes(straight, tmp_path):
    run = stopped_copy(straight, tmp_path)
    first = snapshot.save(str(run), folder=str(tmp_path / "a"))
    second = snapshot.save(str(run), folder=str(tmp_path / "b"))
    assert first["sha256"] == second["sha256"]


def test_an_earlier_best_epoch_travels_with_the_snapshot(straight, tmp_path):
    run = stopped_copy(straight, tmp_path)
    for name in ("model_state_e2_b0.th", "training_state_e2_b0.th", "metrics_epoch_1.json"):  # stopped after epoch 2
        shutil.copyfile(straight / name, run / name)
    # epoch 1 was the best so far (best.th is its weights)
    record = snapshot.save(str(run), folder=str(tmp_path / "s"))
    assert record["epoch"] == 2 and not record["best_is_latest"] and "best.th" in record["files"]
    shutil.rmtree(run)
    assert snapshot.restore(str(run), folder=str(tmp_path / "s"))["restored"]
    assert (run / "best.th").read_bytes() == (straight / "model_state_e1_b0.th").read_bytes()
    assert (run / "model_state_e2_b0.th").read_bytes() == (straight / "model_state_e2_b0.th").read_bytes()


def test_a_missing_tarball_or_a_member_outside_the_folder_is_refused(tmp_path):
    import hashlib
    import io
    import tarfile

    output = tmp_path / "job" / "out.json"
    output.parent.mkdir()
    (tmp_path / "job" / "out.json.journal-0-of-1.jsonl").write_text('{"key": "k"}\n')
    folder = tmp_path / "s"
    record = snapshot.save(str(output), name="job", folder=str(folder))
    tarball = folder / "job.tar.gz"
    tarball.unlink()
    with pytest.raises(InputFileNotFound, match=f"snapshot job: {tarball} is missing"):
        snapshot.restore(str(output), folder=str(folder))
    # a tarball whose record matches it but which would write outside the output's folder
    with tarfile.open(tarball, "w:gz") as archive:
        payload = b'{"key": "k"}\n'
        info = tarfile.TarInfo("../escaped.jsonl")
        info.size = len(payload)
        archive.addfile(info, io.BytesIO(payload))
    record["sha256"] = hashlib.sha256(tarball.read_bytes()).hexdigest()
    (folder / "job.json").write_text(json.dumps(record))
    with pytest.raises(InputError, match="snapshot job: unexpected member '../escaped.jsonl'"):
        snapshot.restore(str(tmp_path / "job" / "out.json"), folder=str(folder), target=str(tmp_path / "job" / "new.json"))
    assert not (tmp_path / "escaped.jsonl").exists()
