"""The shared base of the SQuAD-format readers: noise augmentation (online or from noisy copies,
replacing or with `keep_clean` adding) behaves the same in `squad_v1` and `src_transformer_squad`."""
import json
from collections import Counter

import pytest
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.data import DatasetReader

import srcframework.noise  # noqa: F401  (registers the noise sources)
from srcframework.data.dataset_readers.squad import SquadReader
from srcframework.data.dataset_readers.squad_questions import SquadQuestionReader
from tests.data.dataset_readers.transformer_squad_test import build_tiny_bert

IDS = [f"q{i}" for i in range(60)]
CONTEXT = "Ada lives in Paris and works in Lyon ."


def squad_file(path, questions):
    qas = [{"id": qid, "question": text, "answers": [{"text": "Paris", "answer_start": 13}]} for qid, text in questions.items()]
    path.write_text(json.dumps({"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": CONTEXT, "qas": qas}]}]}))
    return str(path)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("copies")
    clean = squad_file(folder / "clean.json", {qid: "where does ada live" for qid in IDS})
    # the noisy copy lacks the last ten questions: those are only ever read clean
    asr = squad_file(folder / "asr.json", {qid: "wear does a da live" for qid in IDS[:50]})
    return clean, asr


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tiny_bert"))


def reader_params(kind, tiny_bert, **options):
    params = {"type": kind, **options}
    if kind == "src_transformer_squad":
        params["transformer_model_name"] = tiny_bert
    return Params(params)


def questions(reader, path):
    return [(i["metadata"]["id"], i["metadata"]["question"], i["metadata"]["original_question"]) for i in reader.read(path)]


@pytest.mark.parametrize("kind", ["squad_v1", "src_transformer_squad"])
def test_noisy_copies_replace_questions_the_same_way_in_both_readers(kind, files, tiny_bert):
    clean, asr = files
    options = {"noisy_copies": {"asr": asr}, "noisy_copy_weights": {"clean": 1, "asr": 1}, "noise_seed": 7}
    reader = DatasetReader.from_params(reader_params(kind, tiny_bert, **options))
    assert isinstance(reader, SquadQuestionReader)
    read = questions(reader, clean)
    assert [qid for qid, _, _ in read] == IDS
    noisy = [qid for qid, text, _ in read if text != "where does ada live"]
    assert 10 < len(noisy) < 40 and all(qid in IDS[:50] for qid in noisy)
    assert all(original == "where does ada live" for _, _, original in read)
    # the same draws as the text reader's, whatever the reader
    text_reader = SquadReader(noisy_copies={"asr": asr}, noisy_copy_weights={"clean": 1, "asr": 1}, noise_seed=7)
    assert read == questions(text_reader, clean)


@pytest.mark.parametrize("kind", ["squad_v1", "src_transformer_squad"])
def test_keep_clean_adds_each_noised_question_after_its_clean_one(kind, files, tiny_bert):
    clean, asr = files
    options = {"noisy_copies": {"asr": asr}, "noisy_copy_weights": {"asr": 1}, "keep_clean": True}
    reader = DatasetReader.from_params(reader_params(kind, tiny_bert, **options))
    for _ in range(2):  # every epoch
        read = questions(reader, clean)
        # every question clean, and the 50 that have a copy once more, noised, right after it
        assert Counter(qid for qid, _, _ in read) == Counter(IDS + IDS[:50])
        assert [(qid, text) for qid, text, _ in read[:2]] == [("q0", "where does ada live"), ("q0", "wear does a da live")]
        assert sum(text == "where does ada live" for _, text, _ in read) == 60
        assert all(original == "where does ada live" for _, text, original in read if text != "where does ada live")


def test_keep_clean_with_a_clean_share_adds_only_the_questions_drawn_noisy(files):
    clean, asr = files
    reader = SquadReader(noisy_copies={"asr": asr}, noisy_copy_weights={"clean": 1, "asr": 1}, keep_clean=True, noise_seed=7)
    replacing = SquadReader(noisy_copies={"asr": asr}, noisy_copy_weights={"clean": 1, "asr": 1}, noise_seed=7)
    drawn_noisy = {qid for qid, text, _ in questions(replacing, clean) if text != "where does ada live"}
    read = questions(reader, clean)
    assert len(read) == 60 + len(drawn_noisy)
    assert {qid for qid, text, _ in read if text != "where does ada live"} == drawn_noisy


def test_keep_clean_with_online_noise(files):
    clean, _ = files
    reader = DatasetReader.from_params(Params({"type": "squad_v1", "keep_clean": True, "question_noise": {"type": "keyboard"}}))
    read = questions(reader, clean)
    clean_read = [r for r in read if r[1] == "where does ada live"]
    assert len(clean_read) == 60 and len(read) > 60


def test_keep_clean_needs_noise():
    with pytest.raises(ConfigurationError, match="`keep_clean` needs"):
        SquadReader(keep_clean=True)


def test_the_base_class_is_not_a_reader_of_its_own(files):
    clean, _ = files
    with pytest.raises(NotImplementedError):
        list(SquadQuestionReader().read(clean))
