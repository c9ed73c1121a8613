import logging
import json
from collections import Counter

import numpy
import pytest
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.data import Instance
from allennlp.data.fields import MetadataField, TextField
from allennlp.data.tokenizers import Token

from srcframework.data.dataset_readers.squad import SquadReader
from srcframework.data.dataset_readers.squad_src import SquadSrcReader
from srcframework.data.fields.audio_field import AudioField
from srcframework.data.question_controls import QuestionControl, SwappedQuestion
from srcframework.data.question_controls.question_control import paragraph_key
from srcframework.data.question_controls.swapped_question import derangement

FIXTURE = "tests/fixtures/squad_tiny.json"


def words(instance: Instance) -> str:
    return " ".join(token.text for token in instance["question"].tokens)


def text_instances(path=FIXTURE):
    return list(SquadReader().read(path))


def with_singleton(tmp_path) -> str:
    dataset = json.load(open(FIXTURE, encoding="utf-8"))
    paragraph = dataset["data"][0]["paragraphs"][0]
    single = dict(paragraph, qas=[dict(paragraph["qas"][0], id="lonely")], context=paragraph["context"] + " More.")
    dataset["data"][0]["paragraphs"].append(single)
    path = tmp_path / "with_singleton.json"
    path.write_text(json.dumps(dataset), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("size", [2, 3, 5, 17])
def test_a_derangement_moves_every_item_and_keeps_each_once(size):
    import random

    for seed in range(20):
        order = derangement(size, random.Random(seed))
        assert sorted(order) == list(range(size))
        assert all(order[i] != i for i in range(size))


def test_every_question_gets_another_question_of_its_own_paragraph_and_each_text_is_used_once():
    instances = text_instances()
    swapped = SwappedQuestion(seed=0).apply(instances)
    assert [i["metadata"]["id"] for i in swapped] == [i["metadata"]["id"] for i in instances]
    by_id = {i["metadata"]["id"]: i for i in instances}
    for before, after in zip(instances, swapped):
        donor = by_id[after["metadata"]["control"]["question_from"]]
        assert donor["metadata"]["id"] != before["metadata"]["id"]
        assert paragraph_key(donor) == paragraph_key(before)
        assert words(after) == words(donor)
        # the context, the answer span and the answers stay the question's own
        assert after["context"] is before["context"]
        assert after["span_start"] is before["span_start"]
        assert after["metadata"]["answers"] == before["metadata"]["answers"]
        assert after["metadata"]["original_question"] == before["metadata"]["question"]
        assert after["metadata"]["question"] == donor["metadata"]["question"]
    for key in {paragraph_key(i) for i in instances}:
        own = [words(i) for i in instances if paragraph_key(i) == key]
        given = [words(a) for b, a in zip(instances, swapped) if paragraph_key(b) == key]
        assert Counter(own) == Counter(given)


def test_the_draw_depends_on_the_seed_alone():
    instances = text_instances()
    first = [i["metadata"]["control"]["question_from"] for i in SwappedQuestion(seed=3).apply(instances)]
    again = [i["metadata"]["control"]["question_from"] for i in SwappedQuestion(seed=3).apply(text_instances())]
    assert first == again
    draws = {tuple(i["metadata"]["control"]["question_from"] for i in SwappedQuestion(seed=s).apply(instances)) for s in range(10)}
    assert len(draws) > 1  # the 4- and 3-question paragraphs have several derangements


def test_a_one_question_paragraph_is_left_out_and_counted(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    instances = text_instances(with_singleton(tmp_path))
    control = SwappedQuestion()
    swapped = control.apply(instances)
    assert control.last_left_out == 1
    assert "lonely" not in [i["metadata"]["id"] for i in swapped]
    assert len(swapped) == len(instances) - 1
    assert "1 questions left out" in caplog.text


def test_spoken_questions_swap_their_audio(tmp_path):
    reader = SquadSrcReader()
    squad = json.load(open(FIXTURE, encoding="utf-8"))
    instances = []
    for article in squad["data"]:
        for paragraph in article["paragraphs"]:
            for n, qa in enumerate(paragraph["qas"]):
                wave = numpy.random.default_rng(len(instances)).standard_normal(1600 + 160 * len(instances)).astype("float32")
                instances.append(reader.text_to_instance(
                    wave, paragraph["context"], [a["text"] for a in qa["answers"]], [a["answer_start"] for a in qa["answers"]],
                    question_id=qa["id"], question=qa["question"], sample_rate=16000, extra={"title": article["title"]}))
    swapped = SwappedQuestion(seed=1).apply(instances)
    by_id = {i["metadata"]["id"]: i for i in instances}
    for before, after in zip(instances, swapped):
        donor = by_id[after["metadata"]["control"]["question_from"]]
        assert donor is not before
        assert isinstance(after["question"], AudioField)
        assert numpy.array_equal(after["question"].waveform, donor["question"].waveform)
        # an audio question's reference text stays its own (its answer's question)
        assert after["metadata"]["question"] == before["metadata"]["question"]


def test_a_reader_without_a_separate_question_field_is_one_clear_line():
    instance = Instance({"question_with_context": TextField([Token("a")]), "metadata": MetadataField({"id": "q1", "context": "c"})})
    with pytest.raises(ConfigurationError, match="no separate 'question' field"):
        SwappedQuestion().apply([instance])


def test_built_from_params_by_name_and_described_for_cache_keys():
    control = QuestionControl.from_params(Params({"type": "swapped_question", "seed": 4}))
    assert isinstance(control, SwappedQuestion) and control.describe() == {"type": "swapped_question", "seed": 4}
    with pytest.raises(ConfigurationError, match="seed must be a whole number"):
        SwappedQuestion(seed="4")
