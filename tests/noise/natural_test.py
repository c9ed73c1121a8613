import json
from pathlib import Path

import pytest
from allennlp.common import Params

import srcframework.noise.natural  # noqa: F401  (registers "natural")
from srcframework.data.errors import DatasetError
from srcframework.noise.natural import NaturalNoise
from srcframework.noise.noise_source import NoiseSource

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def shared_file(relative: str) -> Path:
    path = SHARED_DATA / relative
    if not path.exists():
        pytest.skip(f"{path} not found: the shared data folder is not beside this checkout")
    return path


def squad_file(tmp_path, qas, name="noised.json"):
    dataset = {"data": [{"title": "T", "paragraphs": [{"context": "Some context.", "qas": qas}]}]}
    path = tmp_path / name
    path.write_text(json.dumps(dataset), encoding="utf-8")
    return str(path)


@pytest.fixture
def small_file(tmp_path):
    return squad_file(tmp_path, [
        {"id": "q1", "question": "Whst is it?", "answers": []},
        {"id": "q2", "question": "Qho is it?", "answers": []},
    ])


def test_looks_up_by_id_in_order(small_file):
    noise = NaturalNoise(small_file)
    assert noise.noise(["Who is it?", "What is it?"], ids=["q2", "q1"]) == ["Qho is it?", "Whst is it?"]
    assert noise.noise(["What is it?"], seed=9, ids=["q1"]) == ["Whst is it?"]  # the seed is unused
    assert noise.noise([], ids=[]) == []


def test_missing_id(small_file):
    with pytest.raises(DatasetError, match=r"noised\.json \(question id 'q9'\): no noised question"):
        NaturalNoise(small_file).noise(["Why?"], ids=["q9"])
    assert NaturalNoise(small_file, missing="keep").noise(["Why?", "?"], ids=["q9", "q1"]) == ["Why?", "Whst is it?"]


def test_needs_ids(small_file):
    noise = NaturalNoise(small_file)
    with pytest.raises(ValueError, match="pass ids"):
        noise.noise(["What is it?"])
    with pytest.raises(ValueError, match="2 questions but 1 ids"):
        noise.noise(["a", "b"], ids=["q1"])


def test_bad_arguments_and_files(tmp_path, small_file):
    with pytest.raises(ValueError, match="missing must be one of"):
        NaturalNoise(small_file, missing="skip")
    with pytest.raises(DatasetError, match="absent.json: file not found"):
        NaturalNoise(str(tmp_path / "absent.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(DatasetError, match="bad.json: malformed JSON"):
        NaturalNoise(str(bad))
    with pytest.raises(DatasetError, match=r"question id 'q1'\): missing or empty question"):
        NaturalNoise(squad_file(tmp_path, [{"id": "q1", "answers": []}], "noq.json"))
    duplicated = [{"id": "q1", "question": "A?"}, {"id": "q1", "question": "B?"}]
    with pytest.raises(DatasetError, match="appears twice"):
        NaturalNoise(squad_file(tmp_path, duplicated, "dup.json"))


def test_from_params_and_describe(small_file):
    noise = NoiseSource.from_params(Params({"type": "natural", "path": small_file, "missing": "keep"}))
    assert isinstance(noise, NaturalNoise)
    assert noise.describe() == {"type": "natural", "path": small_file, "missing": "keep"}
    json.dumps(noise.describe())


def test_noiseqa_keyboard_set():
    path = shared_file("noiseqa/synthetic/xquad-keyboard-synthetic.json")
    noise = NaturalNoise(str(path))
    assert len(noise.questions) == 1190
    qid = next(iter(noise.questions))
    assert noise.noise(["clean question"], ids=[qid]) == [noise.questions[qid]]
