"""Snapshots of a training under way: a tiny BiDAF stopped after its first epoch, snapshotted, its
run folder deleted, restored and continued with `--recover`, against the same training straight through.
Its frozen GloVe matrix comes from a `pretrained` initializer's weights file, so the snapshot leaves it
out and the restore builds it again from config.json."""
import hashlib
import json
import logging
import shutil

import pytest
import torch
from allennlp.commands.train import train_model_from_file

from srcframework.common.errors import InputError, InputFileNotFound
from srcframework.store import snapshot
from tests.conftest import FIXTURES, run_allennlp

CONFIG = str(FIXTURES / "bidaf_tiny.jsonnet")
GLOVE = "context_encoder.text_field_embedder.token_embedder_tokens.weight"  # frozen (trainable: false)
LATER = ["model_state_e2_b0.th", "training_state_e2_b0.th", "model_state_e3_b0.th", "training_state_e3_b0.th",
         "metrics_epoch_1.json", "metrics_epoch_2.json", "metrics.json", "model.tar.gz"]


def glove_from(weights_file):
    """The `model.initializer` that sets the GloVe matrix from `weights_file`."""
    return {"regexes": [[GLOVE.replace(".", r"\."), {"type": "pretrained", "weights_file_path": str(weights_file)}]]}


@pytest.fixture(scope="module")
def glove_file(tmp_path_factory, tiny_archive):
    """A weights file with the tiny BiDAF's GloVe matrix (from its trained run)."""
    path = tmp_path_factory.mktemp("init") / "glove.th"
    torch.save({GLOVE: weights(tiny_archive.parent / "best.th")[GLOVE]}, path)
    return path


@pytest.fixture(scope="module")
def overrides(glove_file):
    """Three epochs, every epoch's checkpoint kept, so that a run can be cut back to its first epoch;
    with dropout, shuffled batches and the reader_epoch callback (as the shipped configs), so that the
    continuation draws from the random generators as the straight run does; GloVe from `glove_file`."""
    return json.dumps({
        "trainer.num_epochs": 3, "trainer.checkpointer": {"keep_most_recent_by_count": 3},
        "model.context_encoder.dropout": 0.3, "model.span_head.dropout": 0.3, "data_loader.shuffle": True,
        "trainer.callbacks": [{"type": "reader_epoch"}], "model.initializer": glove_from(glove_file),
    })


@pytest.fixture(scope="module")
def straight(tmp_path_factory, overrides):
    """A three-epoch training straight through."""
    run = tmp_path_factory.mktemp("straight") / "run"
    train_model_from_file(CONFIG, str(run), overrides=overrides)
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


def assert_same_tensors(ours, theirs):
    """The weights files `ours` and `theirs` hold the same keys in the same order, with tensors of the
    same dtype, shape and bytes."""
    ours, theirs = weights(ours), weights(theirs)
    assert list(ours) == list(theirs)
    for key in ours:
        assert ours[key].dtype == theirs[key].dtype and ours[key].shape == theirs[key].shape, key
        assert ours[key].numpy().tobytes() == theirs[key].numpy().tobytes(), key


def stopped_after_epoch_2(straight, folder):
    """The straight run as it stood after its second epoch, epoch 1 the best so far."""
    run = stopped_copy(straight, folder)
    for name in ("model_state_e2_b0.th", "training_state_e2_b0.th", "metrics_epoch_1.json"):
        shutil.copyfile(straight / name, run / name)
    return run


def initialised_from(run, weights_file):
    """`run`'s config.json made to read the GloVe matrix from `weights_file`."""
    config = json.loads((run / "config.json").read_text())
    config["model"]["initializer"] = glove_from(weights_file)
    (run / "config.json").write_text(json.dumps(config, indent=2))


def test_a_restored_snapshot_continues_as_the_straight_run(straight, overrides, tmp_path):
    run = stopped_copy(straight, tmp_path)
    snaps = tmp_path / "snapshots"
    record = snapshot.save(str(run), folder=str(snaps))
    assert record["kind"] == "training" and record["epoch"] == 1 and record["best_is_latest"]
    assert GLOVE in record["left_out"]["model_state_e1_b0.th"]  # put back from config.json by the restore
    assert "model_state_e1_b0.th" in record["files"] and "training_state_e1_b0.th" in record["files"]
    assert "metrics_epoch_0.json" in record["files"] and "metrics_epoch_1.json" not in record["files"]
    assert "best.th" not in record["files"] and "out.log" not in record["files"]
    assert record["differs_from_uninterrupted"].startswith("nothing")
    assert json.loads((snaps / f"{record['name']}.json").read_text())["sha256"] == record["sha256"]

    shutil.rmtree(run)  # a new machine: nothing but the repository
    restored = snapshot.restore(str(run), folder=str(snaps))
    assert restored["restored"] and snapshot.checkpoint_epoch(str(run)) == 1
    train_model_from_file(CONFIG, str(run), overrides=overrides, recover=True)

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


def test_a_float16_snapshot_is_smaller_and_says_what_differs(straight, overrides, tmp_path):
    run = stopped_copy(straight, tmp_path)
    full = snapshot.save(str(run), folder=str(tmp_path / "full"))
    half = snapshot.save(str(run), folder=str(tmp_path / "half"), float16=True)
    assert half["float16"] and half["size"] < full["size"]
    assert "float16" in half["differs_from_uninterrupted"]
    # stored: the weights in float16, the optimizer state in bfloat16
    import io
    import tarfile

    with tarfile.open(tmp_path / "half" / f"{half['name']}.tar.gz") as tar:
        stored = {name: torch.load(io.BytesIO(tar.extractfile(name).read()), weights_only=False)
                  for name in ("model_state_e1_b0.th", "training_state_e1_b0.th")}
    assert {v.dtype for v in stored["model_state_e1_b0.th"].values() if v is not None and v.numel() > 1} == {torch.float16}
    squares = [s["exp_avg_sq"] for s in stored["training_state_e1_b0.th"]["optimizer"]["state"].values()]
    assert {v.dtype for v in squares if v.numel() > 1} == {torch.bfloat16}  # one-element tensors stay as they are
    shutil.rmtree(run)
    snapshot.restore(str(run), folder=str(tmp_path / "half"))
    state = weights(run / "model_state_e1_b0.th")
    assert all(value.dtype != torch.float16 for value in state.values())  # back in float32 for the trainer
    assert torch.equal(state[GLOVE], weights(straight / "model_state_e1_b0.th")[GLOVE])  # left out: not rounded
    # the optimizer's moments come back in float32 from bfloat16: none of its tiny second moments
    # is flushed to zero (in float16 some are), each within bfloat16's rounding
    moments = weights(run / "training_state_e1_b0.th")["optimizer"]["state"]
    originals = weights(straight / "training_state_e1_b0.th")["optimizer"]["state"]
    for key, state_now in moments.items():
        for name in ("exp_avg", "exp_avg_sq"):
            now, before = state_now[name], originals[key][name]
            assert now.dtype == torch.float32
            assert torch.all((now == 0) == (before == 0)), (key, name)
            assert torch.allclose(now, before, rtol=2 ** -8, atol=0), (key, name)
    squares = torch.cat([state["exp_avg_sq"].flatten() for state in originals.values()])
    assert (squares.half() == 0).sum() > (squares == 0).sum()  # what float16 would have lost here
    train_model_from_file(CONFIG, str(run), overrides=overrides, recover=True)
    assert (run / "metrics.json").is_file()


def test_a_finished_training_travels_as_its_archive(straight, tmp_path):
    """For the work after it: the archive's weights as best.th, archived again on restore."""
    from allennlp.models.archival import load_archive

    record = snapshot.save(str(straight), folder=str(tmp_path / "s"))
    assert record["finished"] and record["epoch"] == 3 and GLOVE in record["left_out"]["best.th"]
    assert "training_state_e3_b0.th" not in record["files"] and "metrics.json" in record["files"]
    # described by what its archive holds: the declared epoch and that epoch's figures, not the last one's
    metrics = json.loads((straight / "metrics.json").read_text())
    line = snapshot.describe(record)
    assert f"finished after 3 epochs, epoch {metrics['best_epoch'] + 1} declared (validation " in line
    assert f"f1 {metrics['best_validation_f1']:.4g}" in line
    target = tmp_path / "back"
    assert snapshot.restore(str(straight), folder=str(tmp_path / "s"), target=str(target))["restored"]
    assert (target / "metrics.json").read_bytes() == (straight / "metrics.json").read_bytes()
    ours, theirs = load_archive(str(target / "model.tar.gz")).model, load_archive(str(straight / "model.tar.gz")).model
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert all(torch.equal(ours.state_dict()[k], theirs.state_dict()[k]) for k in ours.state_dict())
    assert snapshot.restore(str(straight), folder=str(tmp_path / "s"), target=str(target))["restored"] is False
    # carried on once more: the restored folder (no checkpoints in it) saved again, restored on a new machine
    again = snapshot.save(str(target), folder=str(tmp_path / "s2"))
    assert again["finished"] and again["epoch"] == 3
    assert snapshot.restore(str(target), folder=str(tmp_path / "s2"), target=str(tmp_path / "third"))["restored"]
    assert (tmp_path / "third" / "metrics.json").is_file() and (tmp_path / "third" / "model.tar.gz").is_file()


def test_a_finished_restore_stopped_while_archiving_is_not_finished_and_runs_again(straight, tmp_path, monkeypatch):
    import allennlp.models.archival

    snapshot.save(str(straight), folder=str(tmp_path / "s"))
    target = tmp_path / "back"

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    with monkeypatch.context() as patched:
        patched.setattr(allennlp.models.archival, "archive_model", stopped)
        with pytest.raises(KeyboardInterrupt):
            snapshot.restore(str(straight), folder=str(tmp_path / "s"), target=str(target))
    assert not (target / "metrics.json").exists() and not list(target.glob(".model.tar.gz*"))
    assert snapshot.restore(str(straight), folder=str(tmp_path / "s"), target=str(target))["restored"]
    assert (target / "metrics.json").is_file() and (target / "model.tar.gz").is_file()


def test_refusals(straight, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="no finished epoch"):
        snapshot.save(str(empty), folder=str(tmp_path / "s"))
    with pytest.raises(InputFileNotFound, match="no such training folder"):
        snapshot.save(str(tmp_path / "nowhere"), folder=str(tmp_path / "s"))
    run = stopped_copy(straight, tmp_path)
    with pytest.raises(InputError, match=r"over the 0 MiB \(0.0 MB\) limit; try --float16"):
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


def test_saving_the_same_snapshot_again_keeps_its_record(straight, tmp_path):
    run = stopped_copy(straight, tmp_path)
    folder = tmp_path / "s"
    first = snapshot.save(str(run), folder=str(folder))
    record_path = folder / (first["name"] + ".json")
    record_path.write_text(record_path.read_text().replace(first["saved"], "2026-01-01T00:00:00+00:00"))
    again = snapshot.save(str(run), folder=str(folder))
    assert again["saved"] == "2026-01-01T00:00:00+00:00"
    assert json.loads(record_path.read_text())["saved"] == "2026-01-01T00:00:00+00:00"
    shutil.copyfile(straight / "model_state_e2_b0.th", run / "model_state_e2_b0.th")
    shutil.copyfile(straight / "training_state_e2_b0.th", run / "training_state_e2_b0.th")
    shutil.copyfile(straight / "metrics_epoch_1.json", run / "metrics_epoch_1.json")
    later = snapshot.save(str(run), folder=str(folder))
    assert later["epoch"] == first["epoch"] + 1 and later["saved"] != "2026-01-01T00:00:00+00:00"
    assert json.loads(record_path.read_text())["epoch"] == later["epoch"]


def test_an_earlier_best_epoch_travels_with_the_snapshot(straight, glove_file, tmp_path):
    run = stopped_after_epoch_2(straight, tmp_path)
    record = snapshot.save(str(run), folder=str(tmp_path / "s"))
    assert record["epoch"] == 2 and not record["best_is_latest"] and "best.th" in record["files"]
    # the frozen GloVe matrix, as the initializer's file gives it, is left out of both weights files
    digest = hashlib.sha256(weights(glove_file)[GLOVE].numpy().tobytes()).hexdigest()
    assert record["left_out"]["model_state_e2_b0.th"][GLOVE] == record["left_out"]["best.th"][GLOVE] == digest
    assert record["initial_tensors"].startswith("left out") and "initial tensors left out" in snapshot.describe(record)
    whole = snapshot.save(str(run), folder=str(tmp_path / "whole"), leave_out_initial=False)
    assert whole["left_out"] == {} and whole["initial_tensors"].startswith("kept")
    assert record["size"] < whole["size"]
    shutil.rmtree(run)
    assert snapshot.restore(str(run), folder=str(tmp_path / "s"))["restored"]
    assert_same_tensors(run / "best.th", straight / "model_state_e1_b0.th")
    assert_same_tensors(run / "model_state_e2_b0.th", straight / "model_state_e2_b0.th")
    shutil.rmtree(run)
    assert snapshot.restore(str(run), folder=str(tmp_path / "whole"))["restored"]  # the files as they were
    assert (run / "best.th").read_bytes() == (straight / "model_state_e1_b0.th").read_bytes()
    assert (run / "model_state_e2_b0.th").read_bytes() == (straight / "model_state_e2_b0.th").read_bytes()


def test_a_restore_whose_initialisation_reads_other_files_writes_nothing(straight, glove_file, tmp_path):
    run = stopped_after_epoch_2(straight, tmp_path)
    ours = tmp_path / "glove.th"
    shutil.copyfile(glove_file, ours)
    initialised_from(run, ours)
    snapshot.save(str(run), folder=str(tmp_path / "s"))
    shutil.rmtree(run)
    run.mkdir()
    (run / "out.log").write_text("the log of the new machine\n")

    changed = weights(ours)
    changed[GLOVE][1] += 1.0
    torch.save(changed, ours)
    with pytest.raises(InputError) as refused:
        snapshot.restore(str(run), folder=str(tmp_path / "s"))
    assert str(refused.value) == (
        f"snapshot {tmp_path.name}--run: the model built from config.json gives another tensor for {GLOVE}: the files "
        "its initialisation reads differ from the ones the snapshot was saved with; restore or make those first")
    assert sorted(path.name for path in run.iterdir()) == ["out.log"]

    ours.unlink()
    with pytest.raises(InputError) as refused:
        snapshot.restore(str(run), folder=str(tmp_path / "s"))
    message = str(refused.value)
    assert message.startswith(f"snapshot {tmp_path.name}--run: the model cannot be built from its config.json "
                              "to put back ")
    assert GLOVE in message and "FileNotFoundError" in message and str(ours) in message and "\n" not in message
    assert message.endswith("restore or make the files its initialisation reads first")
    assert sorted(path.name for path in run.iterdir()) == ["out.log"]

    shutil.copyfile(glove_file, ours)  # the file as it was at the save
    assert snapshot.restore(str(run), folder=str(tmp_path / "s"))["restored"]
    assert_same_tensors(run / "model_state_e2_b0.th", straight / "model_state_e2_b0.th")


def test_a_model_that_cannot_be_built_keeps_every_tensor(straight, tmp_path, caplog):
    run = stopped_after_epoch_2(straight, tmp_path)
    initialised_from(run, tmp_path / "gone.th")
    with caplog.at_level(logging.WARNING, logger="srcframework.store.snapshot"):
        record = snapshot.save(str(run), folder=str(tmp_path / "s"))
    assert record["left_out"] == {}
    assert record["initial_tensors"].startswith(
        "kept: the model could not be built from config.json (FileNotFoundError")
    warnings = [entry.getMessage() for entry in caplog.records if entry.levelno == logging.WARNING]
    assert len(warnings) == 1 and warnings[0].startswith(f"{run}: every tensor stored, as the model could not be built")
    assert str(tmp_path / "gone.th") in warnings[0]
    shutil.rmtree(run)
    assert snapshot.restore(str(run), folder=str(tmp_path / "s"))["restored"]  # needs no model
    assert (run / "best.th").read_bytes() == (straight / "model_state_e1_b0.th").read_bytes()
    assert (run / "model_state_e2_b0.th").read_bytes() == (straight / "model_state_e2_b0.th").read_bytes()


def test_keep_initial_on_the_command_line(straight, tmp_path):
    run = stopped_copy(straight, tmp_path)
    folder = tmp_path / "snapshots"
    saved = run_allennlp("snapshot", "--folder", folder, "save", run, "--name", "left")
    assert saved.returncode == 0, saved.stderr[-2000:]
    assert saved.stdout.splitlines()[0].endswith(" initial tensors left out")
    kept = run_allennlp("snapshot", "--folder", folder, "save", run, "--name", "kept", "--keep-initial")
    assert kept.returncode == 0, kept.stderr[-2000:]
    record = json.loads((folder / "kept.json").read_text())
    assert record["left_out"] == {} and record["initial_tensors"] == "kept (leave_out_initial=False)"
    assert "left out" not in kept.stdout.splitlines()[0]


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


def test_a_frozen_tensor_drawn_at_random_is_kept(tmp_path):
    # without the initializer the frozen GloVe matrix is drawn from the run's seed: the two builds
    # under other seeds differ from it, so it travels, and the restore gives it back as it was
    run = tmp_path / "run"
    train_model_from_file(CONFIG, str(run), overrides=json.dumps({"trainer.num_epochs": 1}))
    for name in ("metrics.json", "model.tar.gz"):
        (run / name).unlink()  # stopped after its only epoch's checkpoint
    record = snapshot.save(str(run), folder=str(tmp_path / "s"))
    assert record["initial_tensors"].startswith("left out")
    assert all(GLOVE not in tensors for tensors in record["left_out"].values())
    original = run.rename(tmp_path / "original")
    assert snapshot.restore(str(run), folder=str(tmp_path / "s"))["restored"]
    assert_same_tensors(run / "model_state_e1_b0.th", original / "model_state_e1_b0.th")
    assert torch.equal(weights(run / "best.th")[GLOVE], weights(original / "best.th")[GLOVE])
