"""Released archives: every archive in models/ against its card (sha256, size, an answer), the
budgets, and `release` itself on the tiny BiDAF in a repository of a test's own."""
import json
import os
import shutil
import tarfile
from pathlib import Path

import pytest

from srcframework import pretrained
from srcframework.common.errors import InputError
from srcframework.pretrained import ModelArchiveNotFound, archive_status, is_released, load_archive, model_card
from srcframework.store import paths, snapshot
from srcframework.store.limits import FILE_MAX_BYTES, FOLDER_MAX_BYTES, folder_bytes
from srcframework.store.release import members, release
from tests.conftest import FIXTURES, ROOT
from tests.pretrained_test import tiny_card

CONTEXT = json.loads((FIXTURES / "squad_tiny.json").read_text())["data"][0]["paragraphs"][0]["context"]
RELEASED = sorted(model_id for model_id, card in pretrained.model_cards().items() if is_released(card))


def test_some_models_are_released_within_budget():
    assert "bidaf-quickstart" in RELEASED
    models = ROOT / "models"
    assert folder_bytes(str(models)) <= FOLDER_MAX_BYTES
    for path in models.rglob("*.tar.gz"):
        assert path.stat().st_size <= FILE_MAX_BYTES, path


@pytest.mark.parametrize("model_id", RELEASED)
def test_every_released_archive_matches_its_card_and_answers(model_id, tmp_path, monkeypatch):
    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(tmp_path / "empty"))  # nothing installed: the release is used
    card = model_card(model_id)
    state, where = archive_status(card)
    assert state == "released" and where == str(ROOT / card.model_usage.archive_file)
    assert card.model_usage.sha256 and card.model_usage.size == os.path.getsize(where)
    assert pretrained.archive_path(model_id) == where  # its sha256 checked on the way
    names = {name for name, _ in members(where)}
    assert {"config.json", "weights.th"} <= names
    assert not any(name.startswith(("model_state", "training_state", "best.th")) for name in names)
    if card.registered_predictor_name:
        question = {"context": CONTEXT, "question": "When was the harbour of Velmont dredged?"}
        with tarfile.open(where) as tar:
            spoken = json.load(tar.extractfile("config.json"))["dataset_reader"]["type"] == "squad_src"
        if spoken:  # it hears the question: read aloud, from a folder without the encoder's folder
            if shutil.which("flite") is None:
                pytest.skip("flite is not installed (apt-get install -y flite): no question to read aloud")
            from srcframework.common.audio import write_wav_atomic
            from srcframework.speech.flite import FliteSynthesizer

            waveform, rate = FliteSynthesizer("kal16").synthesize(question["question"])
            write_wav_atomic(str(tmp_path / "question.wav"), waveform, rate)
            question["audio"] = str(tmp_path / "question.wav")
            monkeypatch.chdir(tmp_path)
        answer = pretrained.load_predictor(model_id).predict_json(question)
        assert answer["best_span_str"] and answer["best_span_str"] in CONTEXT
    else:
        assert load_archive(model_id).model is not None


@pytest.fixture
def repository(tmp_path, monkeypatch):
    """A repository of the test's own: cards/ beside models/, an empty models folder."""
    cards = tmp_path / "repo" / "cards"
    cards.mkdir(parents=True)
    monkeypatch.setenv("SRCFRAMEWORK_MODELCARDS", str(cards))
    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(tmp_path / "installed"))
    return tmp_path / "repo"


def finished_copy(tiny_archive, folder: Path) -> Path:
    """The tiny archive in a serialization folder of its own, as a finished training leaves it."""
    folder.mkdir(parents=True)
    shutil.copy(tiny_archive, folder / "model.tar.gz")
    (folder / "config.json").write_text("{}")
    (folder / "metrics.json").write_text("{}")
    return folder / "model.tar.gz"


def test_release_writes_a_slim_reproducible_archive_and_records_it(repository, tiny_archive, tmp_path):
    archive = finished_copy(tiny_archive, tmp_path / "run")
    tiny_card(repository / "cards", "tiny", str(archive))
    done = release("tiny")
    target = repository / "models" / "tiny.tar.gz"
    assert done["archive"] == "models/tiny.tar.gz" and target.is_file()
    card = json.loads((repository / "cards" / "tiny.json").read_text())
    assert card["model_usage"]["archive_file"] == "models/tiny.tar.gz"
    assert card["model_usage"]["sha256"] == done["sha256"] and card["model_usage"]["size"] == target.stat().st_size
    assert archive_status(model_card("tiny")) == ("released", str(target))
    first = target.read_bytes()
    with tarfile.open(target) as tar:
        assert all(member.mtime == 0 for member in tar.getmembers())
    release("tiny")  # the same weights give the same bytes
    assert target.read_bytes() == first
    answer = pretrained.load_predictor("tiny").predict_json({"context": CONTEXT, "question": "Who dredged it?"})
    assert answer["best_span_str"] in CONTEXT

    # a changed file is refused, in one line, before AllenNLP reads it
    target.write_bytes(first[:-1] + bytes([first[-1] ^ 1]))
    with pytest.raises(ModelArchiveNotFound, match="does not match the sha256 its card records") as changed:
        pretrained.archive_path("tiny")
    assert "\n" not in str(changed.value)
    target.unlink()
    with pytest.raises(ModelArchiveNotFound, match="released archive .* is missing from this clone"):
        pretrained.archive_path("tiny")


def test_float16_halves_the_weights(repository, tiny_archive, tmp_path):
    import torch

    archive = finished_copy(tiny_archive, tmp_path / "run")
    tiny_card(repository / "cards", "tiny", str(archive))
    done = release("tiny", float16=True)
    assert json.loads((repository / "cards" / "tiny.json").read_text())["model_usage"]["float16"] is True
    with tarfile.open(repository / "models" / "tiny.tar.gz") as tar:
        weights = torch.load(tar.extractfile("weights.th"), map_location="cpu", weights_only=False)
    assert {value.dtype for value in weights.values() if value.is_floating_point()} == {torch.float16}
    loaded = load_archive("tiny").model  # AllenNLP copies them into float32 parameters
    assert all(parameter.dtype == torch.float32 for parameter in loaded.parameters())
    assert done["float16"]


def test_release_refuses_what_is_not_a_finished_training_or_over_budget(repository, tiny_archive, tmp_path):
    stopped = tmp_path / "stopped"
    stopped.mkdir()
    shutil.copy(tiny_archive, stopped / "model.tar.gz")
    (stopped / "config.json").write_text("{}")  # no metrics.json: stopped after an epoch
    tiny_card(repository / "cards", "tiny", str(stopped / "model.tar.gz"))
    with pytest.raises(InputError, match="stopped training's best epoch so far"):
        release("tiny")
    with pytest.raises(InputError, match="stopped training's best epoch so far"):
        pretrained.install("tiny")
    archive = finished_copy(tiny_archive, tmp_path / "run")
    with pytest.raises(InputError, match=r"over the 0 MiB \(0.0 MB\) limit \(try --float16"):
        release("tiny", str(archive), max_bytes=1000)
    with pytest.raises(InputError, match=r"models/ would hold .* over its 0 MiB \(0.0 MB\) budget"):
        release("tiny", str(archive), folder_max_bytes=1000)
    assert not list((repository / "models").glob("*"))  # nothing left behind


def test_release_removes_the_snapshot_of_its_training(repository, tiny_archive, tmp_path, monkeypatch):
    run = tmp_path / "run"
    archive = finished_copy(tiny_archive, run)
    snaps = tmp_path / "snaps"
    snaps.mkdir()
    monkeypatch.setattr(paths, "snapshots_dir", lambda: str(snaps))
    (snaps / "x.json").write_text(json.dumps({"name": "x", "kind": "training", "source": snapshot.source_key(str(run))}))
    (snaps / "x.tar.gz").write_bytes(b"")
    tiny_card(repository / "cards", "tiny", str(archive))
    assert release("tiny")["snapshot_removed"] == "x"
    assert not list(snaps.iterdir())


def test_a_packaged_card_without_its_repository_says_how_to_get_the_archive(monkeypatch, tmp_path):
    """Installed with `pip install .`, the cards ship in the package but models/ does not."""
    monkeypatch.delenv("SRCFRAMEWORK_MODELCARDS", raising=False)
    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(tmp_path / "empty"))
    monkeypatch.setattr(paths, "PROJECT_ROOT", str(tmp_path / "site-packages"))
    with pytest.raises(ModelArchiveNotFound, match=r"released in the srcframework repository as "
                                                   r"models/bidaf-quickstart.tar.gz, which is not beside this installation") as err:
        pretrained.archive_path("bidaf-quickstart")
    assert "allennlp models install bidaf-quickstart --archive CLONE/models/bidaf-quickstart.tar.gz" in str(err.value)
    assert "fetching it by name failed (cannot fetch http://127.0.0.1:9/bidaf-quickstart.tar.gz" in str(err.value)
    assert archive_status(model_card("bidaf-quickstart"))[0] == "to fetch"


def test_release_refuses_a_card_without_output_or_an_archive_without_weights(repository, tmp_path):
    tiny_card(repository / "cards", "nothing", "")
    with pytest.raises(InputError, match="model 'nothing': its card declares no output; give the archive to release"):
        release("nothing")
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text("{}")
    (run / "metrics.json").write_text("{}")
    with tarfile.open(run / "model.tar.gz", "w:gz") as tar:
        tar.add(run / "config.json", arcname="config.json")
    with pytest.raises(InputError, match=f"^{run}/model.tar.gz: not an AllenNLP model archive \\(no weights.th and config.json\\)$"):
        release("nothing", str(run / "model.tar.gz"))
    assert not (repository / "models").exists() or not list((repository / "models").iterdir())  # nothing left behind
