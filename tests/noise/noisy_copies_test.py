import json
import shutil
from collections import Counter

import pytest
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.data import DatasetReader

import srcframework.noise  # noqa: F401  (registers the noise sources)
from srcframework.data.dataset_readers.squad import SquadReader
from srcframework.data.errors import DatasetError
from srcframework.noise.noise_source import NoiseSource
from srcframework.noise.noisy_copies import NoisyCopies

CONTEXT = "Ada lives in Paris and works in Lyon."
IDS = [f"q{i}" for i in range(400)]


def squad_file(path, questions):
    """A SQuAD file with one paragraph holding `questions` ({id: text}), each answered 'Paris'."""
    qas = [{"id": qid, "question": text, "answers": [{"text": "Paris", "answer_start": 13}]} for qid, text in questions.items()]
    path.write_text(json.dumps({"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": CONTEXT, "qas": qas}]}]}))
    return str(path)


@pytest.fixture
def files(tmp_path):
    clean = squad_file(tmp_path / "clean.json", {qid: f"where does ada live {qid}" for qid in IDS})
    asr = squad_file(tmp_path / "asr.json", {qid: f"ASR {qid}" for qid in IDS})
    keyboard = squad_file(tmp_path / "keyboard.json", {qid: f"KEY {qid}" for qid in IDS})
    return clean, asr, keyboard


def version(text: str) -> str:
    return text.split()[0] if text.split()[0] in ("ASR", "KEY") else "clean"


def test_weights_are_respected_over_many_draws(files):
    _, asr, keyboard = files
    source = NoisyCopies({"asr": asr, "keyboard": keyboard}, weights={"clean": 1, "asr": 2, "keyboard": 1})
    counts = Counter()
    for seed in range(10):
        counts.update(version(q) for q in source.noise([f"clean {i}" for i in IDS], seed=seed, ids=IDS))
    total = sum(counts.values())
    assert abs(counts["clean"] / total - 0.25) < 0.03
    assert abs(counts["ASR"] / total - 0.50) < 0.03
    assert abs(counts["KEY"] / total - 0.25) < 0.03


def test_draws_are_deterministic_per_seed_and_vary_with_it(files):
    _, asr, keyboard = files
    source = NoisyCopies({"asr": asr, "keyboard": keyboard})
    questions = [f"clean {i}" for i in IDS]
    first = source.noise(questions, seed=3, ids=IDS)
    assert source.noise(questions, seed=3, ids=IDS) == first
    # independent of batching and order
    halves = source.noise(questions[200:], seed=3, ids=IDS[200:]) + source.noise(questions[:200], seed=3, ids=IDS[:200])
    assert halves[200:] + halves[:200] == first
    assert source.noise(questions, seed=4, ids=IDS) != first


def test_a_copy_that_lacks_a_question_is_not_drawn_for_it(tmp_path, files):
    _, asr, _ = files
    partial = squad_file(tmp_path / "partial.json", {"q0": "KEY q0"})
    source = NoisyCopies({"asr": asr, "keyboard": partial}, weights={"keyboard": 1})
    assert source.noise(["clean 0", "clean 1"], ids=["q0", "q1"]) == ["KEY q0", "clean 1"]


def test_bad_configurations(files):
    _, asr, _ = files
    with pytest.raises(ConfigurationError, match="at least one"):
        NoisyCopies({})
    with pytest.raises(ConfigurationError, match="reserved"):
        NoisyCopies({"clean": asr})
    with pytest.raises(ConfigurationError, match="unknown copies"):
        NoisyCopies({"asr": asr}, weights={"asr": 1, "typo": 1})
    with pytest.raises(ConfigurationError, match="not all zero"):
        NoisyCopies({"asr": asr}, weights={"asr": 0})
    with pytest.raises(ValueError, match="question id"):
        NoisyCopies({"asr": asr}).noise(["a question"])


def test_reader_option_mixes_per_epoch_and_validation_stays_clean(files):
    clean, asr, keyboard = files
    params = Params({"type": "squad_v1", "noise_seed": 5,
                     "noisy_copies": {"asr": asr, "keyboard": keyboard},
                     "noisy_copy_weights": {"clean": 1, "asr": 1, "keyboard": 1}})
    reader = DatasetReader.from_params(params)
    epochs = []
    for _ in range(2):
        instances = list(reader.read(clean))
        epochs.append([i["metadata"]["question"] for i in instances])
        originals = [i["metadata"]["original_question"] for i in instances]
        assert originals == [f"where does ada live {qid}" for qid in IDS]
    counts = Counter(version(q) for q in epochs[0])
    assert all(100 <= counts[name] <= 170 for name in ("clean", "ASR", "KEY"))
    assert epochs[0] != epochs[1]  # drawn afresh each epoch
    # a second reader with the same seed draws the same first epoch
    again = DatasetReader.from_params(Params({"type": "squad_v1", "noise_seed": 5,
                                            "noisy_copies": {"asr": asr, "keyboard": keyboard}}))
    assert [i["metadata"]["question"] for i in again.read(clean)] == epochs[0]
    # the validation reader (no noisy_copies) reads the clean questions
    assert [i["metadata"]["question"] for i in SquadReader().read(clean)] == [f"where does ada live {q}" for q in IDS]


def test_reader_rejects_both_noise_options(files):
    _, asr, _ = files
    with pytest.raises(ConfigurationError, match="not both"):
        SquadReader(question_noise=NoiseSource.by_name("keyboard")(), noisy_copies={"asr": asr})
    with pytest.raises(ConfigurationError, match="needs `noisy_copies`"):
        SquadReader(noisy_copy_weights={"clean": 1})


def test_an_empty_noisy_question_is_never_drawn(tmp_path):
    copy = squad_file(tmp_path / "asr.json", {"q0": "", "q1": "ASR q1"})
    source = NoisyCopies({"asr": copy}, weights={"asr": 1})
    assert source.noise(["clean 0", "clean 1"], ids=["q0", "q1"]) == ["clean 0", "ASR q1"]


def test_the_copies_are_read_at_the_first_draw_not_when_the_source_is_built(tmp_path, files):
    _, asr, _ = files
    missing = str(tmp_path / "runs" / "noisy" / "keyboard.json")
    source = NoisyCopies({"asr": asr, "keyboard": missing})  # an archive's reader, far from its files
    assert source.describe()["copies"]["keyboard"] == missing
    with pytest.raises(DatasetError, match="keyboard.json"):
        source.noise(["where does ada live"], ids=["q0"])
    empty = squad_file(tmp_path / "empty.json", {"q0": " "})
    with pytest.raises(DatasetError, match="holds no non-empty question"):
        NoisyCopies({"asr": empty}).choose("q0")


def test_an_archive_trained_with_noisy_copies_loads_and_answers_without_them(tmp_path, monkeypatch):
    from allennlp.commands.train import train_model_from_file
    from allennlp.models.archival import load_archive
    from allennlp.predictors import Predictor

    from tests.conftest import FIXTURES, ROOT

    squad = json.loads((FIXTURES / "squad_tiny.json").read_text())
    for article in squad["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                qa["question"] = qa["question"].upper()
    copy = tmp_path / "noisy" / "shouted.json"
    copy.parent.mkdir()
    copy.write_text(json.dumps(squad))
    monkeypatch.chdir(ROOT)  # the fixture config names its files from the repository root
    overrides = {"dataset_reader.noisy_copies": {"shouted": str(copy)}, "trainer.num_epochs": 1}
    run = tmp_path / "run"
    train_model_from_file(str(FIXTURES / "bidaf_tiny.jsonnet"), str(run), overrides=json.dumps(overrides))
    shutil.rmtree(copy.parent)  # another machine: the archive's reader names a file it lacks
    predictor = Predictor.from_archive(load_archive(str(run / "model.tar.gz")), "span_qa")
    paragraph = squad["data"][0]["paragraphs"][0]
    answer = predictor.predict_json({"id": "q", "context": paragraph["context"], "question": "what?"})
    assert answer["best_span_str"] in paragraph["context"]
