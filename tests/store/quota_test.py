"""The models folder's quota (srcframework/store/quota.py): what `allennlp recipe snapshot` saves of
the work under way, in half precision where full precision is over a limit, and what it leaves
out while the clone's models/ is over its limit."""
import json
import shutil

import pytest

from srcframework.common.errors import InputError
from srcframework.recipes.recipe import load_recipe
from srcframework.recipes.status import under_way
from srcframework.store import limits, paths, snapshot
from srcframework.store.quota import save_snapshots
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "recipes" / "tiny")


def test_saves_in_float16_what_is_over_the_limit_in_full(tmp_path, tiny_archive, monkeypatch, caplog):
    runs = tmp_path / "runs"
    recipe = load_recipe(TINY, runs=str(runs))
    first = runs / "tiny" / "first"
    shutil.copytree(tiny_archive.parent, first)
    for name in ("metrics.json", "model.tar.gz"):
        (first / name).unlink()  # stopped after its last epoch's checkpoint
    full = snapshot.save(str(first), folder=str(tmp_path / "full"))
    monkeypatch.setattr(limits, "FILE_MAX_BYTES", full["size"] - 1)
    with caplog.at_level("WARNING"):
        [record] = save_snapshots(under_way(recipe), str(tmp_path / "s"))
    assert record["float16"] and record["size"] < full["size"]
    assert "MB) limit; saved in half precision instead" in caplog.text and "try --float16" not in caplog.text
    # a finished training over the limit is not rounded: named, after the others are saved
    shutil.copytree(tiny_archive.parent, runs / "tiny" / "second_s1")  # finished; the study after it has not run
    monkeypatch.setattr(limits, "FILE_MAX_BYTES", 1000)
    with pytest.raises(InputError, match=r"second_s1: its snapshot would be .* MB\) limit \(saved: nothing\)$"):
        save_snapshots(under_way(recipe), str(tmp_path / "s3"))


def test_warns_when_the_models_folder_is_over_its_limit(tmp_path, tiny_archive, monkeypatch, caplog):
    runs = tmp_path / "runs"
    first = runs / "tiny" / "first"
    shutil.copytree(tiny_archive.parent, first)
    for name in ("metrics.json", "model.tar.gz"):
        (first / name).unlink()
    monkeypatch.setattr(paths, "PROJECT_ROOT", str(tmp_path / "clone"))
    models = tmp_path / "clone" / "models"
    # over the limit in full precision, within it in half: saved again in half precision, no other warning
    full = snapshot.save(str(first), folder=str(tmp_path / "full"))
    monkeypatch.setattr(limits, "FOLDER_MAX_BYTES", full["size"])
    with caplog.at_level("WARNING"):
        [record] = save_snapshots(under_way(load_recipe(TINY, runs=str(runs))))
    assert record["float16"] and limits.folder_bytes(str(models)) <= full["size"]
    assert "saved in half precision instead" in caplog.text and "remove or release" not in caplog.text
    caplog.clear()
    # over the limit even without it (a release alone is over): kept, and the folder named
    monkeypatch.setattr(limits, "FOLDER_MAX_BYTES", 1000)
    (models / "a-release.tar.gz").write_bytes(b"0" * 2000)
    with caplog.at_level("WARNING"):
        [record] = save_snapshots(under_way(load_recipe(TINY, runs=str(runs))))
    assert snapshot.find(str(first))["sha256"] == record["sha256"] and "left out" not in caplog.text
    assert f"{models} holds" in caplog.text and "over its 0.0 MB limit" in caplog.text
    assert "remove or release what is no longer needed" in caplog.text


def test_leaves_out_the_least_advanced_training_when_half_precision_is_not_enough(
        tmp_path, tiny_archive, monkeypatch, caplog):
    runs = tmp_path / "runs"
    first, second = runs / "tiny" / "first", runs / "tiny" / "second_s1"
    for folder in (first, second):
        shutil.copytree(tiny_archive.parent, folder)
        for name in ("metrics.json", "model.tar.gz"):
            (folder / name).unlink()
    for name in ("model_state_e2_b0.th", "training_state_e2_b0.th"):
        (second / name).unlink()  # one epoch behind the first
    monkeypatch.setattr(paths, "PROJECT_ROOT", str(tmp_path / "clone"))
    models = tmp_path / "clone" / "models"
    half = snapshot.save(str(first), folder=str(tmp_path / "half"), float16=True)
    monkeypatch.setattr(limits, "FOLDER_MAX_BYTES", int(half["size"] * 1.5))  # room for one in half precision
    walked, folder_bytes = [], limits.folder_bytes
    monkeypatch.setattr(limits, "folder_bytes", lambda folder: walked.append(folder) or folder_bytes(folder))
    with caplog.at_level("WARNING"):
        records = save_snapshots(under_way(load_recipe(TINY, runs=str(runs))))
    assert walked == [str(models)]  # one walk, for two saved again in half precision and one left out
    monkeypatch.setattr(limits, "folder_bytes", folder_bytes)
    assert [(record["name"], record["epoch"], record["float16"]) for record in records] == [("tiny--first", 2, True)]
    assert snapshot.find(str(second)) is None and limits.folder_bytes(str(models)) <= limits.FOLDER_MAX_BYTES
    assert "tiny--second_s1 (after 1 epoch) left out; a machine without" in caplog.text
    assert "remove or release" not in caplog.text
    # a finished training is never left out, even with fewer epochs than one under way
    (first / "metrics.json").write_text(json.dumps({"epoch": 0}))
    shutil.copy(tiny_archive, first / "model.tar.gz")
    finished = snapshot.save(str(first), folder=str(tmp_path / "finished"))
    monkeypatch.setattr(limits, "FOLDER_MAX_BYTES", int(finished["size"] + half["size"] * 0.5))
    caplog.clear()
    with caplog.at_level("WARNING"):
        records = save_snapshots(under_way(load_recipe(TINY, runs=str(runs))))
    assert [(record["name"], record.get("finished", False)) for record in records] == [("tiny--first", True)]
    assert "tiny--second_s1 (after 1 epoch) left out" in caplog.text and "tiny--first (after" not in caplog.text
