import numpy
import pytest
from allennlp.common.checks import ConfigurationError

from srcframework.data.dataset_readers.squad import SquadReader
from srcframework.data.dataset_readers.squad_src import SquadSrcReader
from srcframework.data.fields.audio_field import AudioField
from srcframework.data.question_controls import SilentQuestion

FIXTURE = "tests/fixtures/squad_tiny.json"


def test_a_spoken_question_becomes_silence_of_the_same_length():
    reader = SquadSrcReader()
    wave = numpy.random.default_rng(0).standard_normal(4321).astype("float32")
    instance = reader.text_to_instance(wave, "Ann Lee founded it in 1900.", ["Ann Lee"], [0], question_id="q1",
                                       question="Who founded it?", sample_rate=16000)
    [silent] = SilentQuestion().apply([instance])
    assert isinstance(silent["question"], AudioField)
    assert len(silent["question"]) == len(instance["question"]) == 4321
    assert not silent["question"].waveform.any()
    assert silent["metadata"]["control"] == {"type": "silent_question"}
    assert silent["metadata"]["question"] == "Who founded it?"
    assert silent["context"] is instance["context"]


def test_a_text_question_becomes_the_neutral_token_and_keeps_its_indexers():
    instances = list(SquadReader().read(FIXTURE))
    silent = SilentQuestion().apply(instances)
    assert len(silent) == len(instances)
    for before, after in zip(instances, silent):
        assert [t.text for t in after["question"].tokens] == ["?"]
        assert after["question"]._token_indexers is before["question"]._token_indexers
        assert after["metadata"]["question"] == "?"
        assert after["metadata"]["original_question"] == before["metadata"]["question"]


def test_the_token_must_be_one_word():
    with pytest.raises(ConfigurationError, match="one non-empty word"):
        SilentQuestion(token="two words")
    with pytest.raises(ConfigurationError, match="one non-empty word"):
        SilentQuestion(token=" ")
