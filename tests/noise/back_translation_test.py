import pickle

import pytest
from allennlp.common import Params

import srcframework.noise.back_translation  # noqa: F401  (registers "back_translation", "apertium")
from srcframework.noise.back_translation import BackTranslationNoise
from srcframework.noise.noise_source import NoiseSource
from tests.conftest import needs_apertium_eng_spa
from srcframework.speech.engines import EngineNotFound


pytestmark = needs_apertium_eng_spa

QUESTIONS = [
    "What is the capital of France?",
    "How many career sacks did Jared Allen have?",
    "Who wrote Dr. Zhivago. Was it Pasternak?",
    "",
    "Which player had the most interceptions for the season?",
    "I like the red",
    "car is here",
]
DEFAULT_CONFIG = {
    "type": "back_translation",
    "forward": {"type": "apertium", "pair": "eng-spa"},
    "backward": {"type": "apertium", "pair": "spa-eng"},
}


@pytest.fixture(scope="module")
def source():
    return BackTranslationNoise()


@pytest.fixture(scope="module")
def noised(source):
    return source.noise(QUESTIONS)


def test_round_trip_changes_but_keeps_the_question(noised):
    assert len(noised) == len(QUESTIONS)
    assert all(isinstance(q, str) for q in noised)
    assert "France" in noised[0] and "capital" in noised[0]
    assert "Jared Allen" in noised[1]
    assert "Pasternak" in noised[2] and "Zhivago" in noised[2]
    assert noised[3] == ""
    assert sum(n != q for n, q in zip(noised, QUESTIONS)) >= 2  # translation noise is real


def test_deterministic_whatever_the_seed_order_and_batch(source, noised):
    assert source.noise(list(reversed(QUESTIONS)), seed=5) == list(reversed(noised))
    assert [source.noise([q])[0] for q in QUESTIONS[-2:]] == noised[-2:]


def test_describe_round_trips(source):
    assert source.describe() == DEFAULT_CONFIG
    rebuilt = NoiseSource.from_params(Params(source.describe()))
    assert isinstance(rebuilt, BackTranslationNoise) and rebuilt.describe() == DEFAULT_CONFIG


def test_from_params_with_explicit_translators(noised):
    source = NoiseSource.from_params(Params(dict(DEFAULT_CONFIG, backward={"type": "apertium", "pair": "spa-eng_US"})))
    assert source.describe()["backward"] == {"type": "apertium", "pair": "spa-eng_US"}
    assert len(source.noise(QUESTIONS[:2])) == 2


def test_pickles_for_worker_processes(source, noised):
    assert pickle.loads(pickle.dumps(source)).noise(QUESTIONS[:1]) == noised[:1]


def test_missing_apertium(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EngineNotFound, match="apt-get install -y apertium apertium-eng-spa"):
        BackTranslationNoise()
    with pytest.raises(EngineNotFound, match="apertium"):
        NoiseSource.from_params(Params({"type": "back_translation"}))
