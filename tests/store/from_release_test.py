"""A training put back from its released archive: only with the training's config, after the sha256
check, into a folder the recipe counts finished (the runner's part: tests/recipes/released_trainings_test.py)."""
import json
import shutil
import tarfile

import pytest

from srcframework.common.errors import InputError
from srcframework.common.files import file_sha256
from srcframework.common.training_runs import finished
from srcframework.store.from_release import released_archive, restore_from_release
from tests.conftest import ROOT


def release(tmp_path, monkeypatch, archive_source, model_id):
    """A clone-like folder (its cards the ones the tests see) whose card `model_id` (bidaf-quickstart's,
    renamed) releases a copy of `archive_source` as models/ID.tar.gz; that copy's path."""
    cards = tmp_path / "clone" / "modelcards"
    cards.mkdir(parents=True)
    (tmp_path / "clone" / "models").mkdir()
    archive = tmp_path / "clone" / "models" / f"{model_id}.tar.gz"
    shutil.copyfile(archive_source, archive)
    card = json.loads((ROOT / "srcframework" / "modelcards" / "bidaf-quickstart.json").read_text())
    card["id"] = model_id
    card["model_usage"].update(archive_file=f"models/{model_id}.tar.gz", sha256=file_sha256(str(archive)),
                               size=archive.stat().st_size)
    (cards / f"{model_id}.json").write_text(json.dumps(card))
    monkeypatch.setenv("SRCFRAMEWORK_MODELCARDS", str(cards))
    return archive


@pytest.fixture
def released(tmp_path, monkeypatch, tiny_archive):
    """The tiny BiDAF's archive released under card `tiny-released`; its path and config."""
    archive = release(tmp_path, monkeypatch, tiny_archive, "tiny-released")
    with tarfile.open(archive) as tar:
        config = json.load(tar.extractfile("config.json"))
    return archive, config


def test_a_released_training_comes_back_into_a_finished_folder(released, tmp_path):
    archive, config = released
    folder = tmp_path / "runs" / "first"
    assert released_archive("tiny-released", config) == str(archive)
    restore_from_release(str(folder), str(archive), "tiny-released")
    assert finished(str(folder))
    assert (folder / "model.tar.gz").read_bytes() == archive.read_bytes()
    assert json.loads((folder / "config.json").read_text()) == config
    assert (folder / "best.th").is_file() and (folder / "vocabulary" / "tokens.txt").is_file()
    assert json.loads((folder / "metrics.json").read_text())["sha256"] == file_sha256(str(archive))
    assert not [p for p in (tmp_path / "runs").iterdir() if p.name.startswith(".")]  # no staging left


def test_another_config_no_card_or_a_changed_archive_is_not_put_back(released, tmp_path):
    archive, config = released
    changed = json.loads(json.dumps(config))
    changed["trainer"]["num_epochs"] = 99
    assert released_archive("tiny-released", changed) is None
    assert released_archive(None, config) is None
    archive.write_bytes(archive.read_bytes() + b"\0")
    with pytest.raises(InputError, match="does not match the sha256 its card records"):
        released_archive("tiny-released", config)


def test_a_released_archive_with_a_member_outside_is_refused_and_nothing_is_left(released, tmp_path):
    import io

    from srcframework.compat import UnsafeArchiveError

    archive, _ = released
    with tarfile.open(archive, "r:gz") as tar:
        members = [(m, tar.extractfile(m).read()) for m in tar.getmembers() if m.isfile()]
    bad = tmp_path / "bad.tar.gz"
    with tarfile.open(bad, "w:gz") as tar:
        for member, payload in members + [(tarfile.TarInfo("vocabulary/../../escaped.txt"), b"x")]:
            member.size = len(payload)
            tar.addfile(member, io.BytesIO(payload))
    folder = str(tmp_path / "runs" / "first")
    with pytest.raises(UnsafeArchiveError):
        restore_from_release(folder, str(bad), "tiny-released")
    assert not (tmp_path / "escaped.txt").exists() and list((tmp_path / "runs").iterdir()) == []
    restore_from_release(folder, str(archive), "tiny-released")
    assert (tmp_path / "runs" / "first").stat().st_mode & 0o777 == 0o755
