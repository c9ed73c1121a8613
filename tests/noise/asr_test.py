import pickle
import shutil

import jiwer
import pytest
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError

import srcframework.noise.asr  # noqa: F401  (registers "asr", "flite", "pocketsphinx")
from srcframework.noise.asr import AsrNoise
from srcframework.noise.noise_source import NoiseSource
from srcframework.speech.engines import EngineNotFound

pytest.importorskip("pocketsphinx")
pytestmark = pytest.mark.skipif(
    shutil.which("flite") is None, reason="flite is not installed (apt-get install -y flite)"
)

QUESTIONS = [
    "What is the capital of France?",
    "How many points did the Panthers defense surrender?",
    "",
]
DEFAULT_CONFIG = {
    "type": "asr",
    "synthesizer": {"type": "flite", "voice": "kal16"},
    "recognizer": {"type": "pocketsphinx", "hmm": None, "lm": None, "dict": None, "preset": "default", "options": {}},
}


@pytest.fixture(scope="module")
def source():
    return AsrNoise()


@pytest.fixture(scope="module")
def noised(source):
    return source.noise(QUESTIONS)


def normalise(text):
    return " ".join("".join(c for c in text.lower() if c.isalnum() or c.isspace()).split())


def test_noise_is_a_transcript(noised):
    assert len(noised) == len(QUESTIONS)
    assert all(isinstance(q, str) and q == q.lower() for q in noised)
    assert jiwer.wer([normalise(q) for q in QUESTIONS[:2]], noised[:2]) < 0.5
    assert noised[0] != QUESTIONS[0]  # lowercase, no question mark: it went through speech
    assert noised[2] == ""  # nothing to say, nothing heard: kept empty, not replaced by the clean question


def test_deterministic_whatever_the_seed_order_and_batch(source, noised):
    assert source.noise(list(reversed(QUESTIONS[:2])), seed=7) == list(reversed(noised[:2]))
    assert source.noise([QUESTIONS[1]], seed=3, ids=["q1"]) == [noised[1]]


def test_describe_round_trips(source):
    assert source.describe() == DEFAULT_CONFIG
    rebuilt = NoiseSource.from_params(Params(source.describe()))
    assert isinstance(rebuilt, AsrNoise) and rebuilt.describe() == DEFAULT_CONFIG


def test_from_params_with_other_voice():
    config = {"type": "asr", "synthesizer": {"type": "flite", "voice": "slt"}, "recognizer": {"type": "pocketsphinx"}}
    source = NoiseSource.from_params(Params(config))
    assert isinstance(source, AsrNoise)
    assert source.describe()["synthesizer"] == {"type": "flite", "voice": "slt"}
    [heard] = source.noise(["What is the capital of France?"])
    assert jiwer.wer("what is the capital of france", heard) < 0.5


def test_pickles_for_worker_processes(source, noised):
    copy = pickle.loads(pickle.dumps(source))
    assert copy.noise([QUESTIONS[0]]) == [noised[0]]


def test_missing_flite(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EngineNotFound, match=r"flite is not installed: apt-get update && apt-get install -y flite"):
        AsrNoise()
    with pytest.raises(EngineNotFound, match="flite is not installed"):
        NoiseSource.from_params(Params({"type": "asr"}))


def test_questions_are_dealt_over_several_voices_by_id():
    source = NoiseSource.from_params(Params({
        "type": "asr",
        "synthesizers": [{"type": "flite", "voice": "kal16"}, {"type": "flite", "voice": "slt"}],
        "recognizer": {"type": "pocketsphinx", "preset": "fast"},
    }))
    ids = [f"id{i}" for i in range(40)]
    voices = [source.voice_for(qid).voice for qid in ids]
    assert set(voices) == {"kal16", "slt"} and voices == [source.voice_for(qid).voice for qid in ids]
    described = source.describe()
    assert [s["voice"] for s in described["synthesizers"]] == ["kal16", "slt"]
    assert described["recognizer"]["preset"] == "fast"
    rebuilt = NoiseSource.from_params(Params(described))
    assert [rebuilt.voice_for(qid).voice for qid in ids] == voices
    question = QUESTIONS[0]
    slt_id = ids[voices.index("slt")]
    kal_id = ids[voices.index("kal16")]
    assert source.speak(question, source.voice_for(slt_id)).shape != source.speak(question, source.voice_for(kal_id)).shape
    transcripts = source.noise([question, question], ids=[slt_id, kal_id])
    assert all(jiwer.wer("what is the capital of france", t) < 0.6 for t in transcripts)
    with pytest.raises(ConfigurationError, match="not both"):
        AsrNoise(synthesizer=source.synthesizers[0], synthesizers=source.synthesizers)
