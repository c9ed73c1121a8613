import shutil

import numpy
import pytest
from allennlp.common import Params

from srcframework.speech.engines import EngineNotFound, SpeechSynthesizer
from srcframework.speech.flite import FliteSynthesizer

pytestmark = pytest.mark.skipif(
    shutil.which("flite") is None, reason="flite is not installed (apt-get install -y flite)"
)


def test_synthesize_kal16():
    waveform, rate = FliteSynthesizer().synthesize("what is the capital of france")
    assert rate == 16000
    assert waveform.dtype == numpy.float32 and waveform.ndim == 1
    assert 0.8 < len(waveform) / rate < 5.0
    assert 0.05 < numpy.abs(waveform).max() <= 1.0
    again, _ = FliteSynthesizer().synthesize("what is the capital of france")
    assert numpy.array_equal(waveform, again)  # deterministic


def test_voices_and_rates():
    kal, kal_rate = FliteSynthesizer(voice="kal").synthesize("hello")
    slt, slt_rate = FliteSynthesizer(voice="slt").synthesize("hello")
    assert kal_rate == 8000 and slt_rate == 16000
    assert len(kal) > 0 and len(slt) > 0


def test_nothing_to_say_gives_empty_waveform():
    for text in ["", "?"]:
        waveform, rate = FliteSynthesizer().synthesize(text)
        assert waveform.shape == (0,) and waveform.dtype == numpy.float32 and rate == 16000


def test_text_that_looks_like_an_option_is_spoken():
    waveform, _ = FliteSynthesizer().synthesize("-o hello there")
    assert len(waveform) > 8000


def test_unknown_voice_lists_the_voices():
    with pytest.raises(ValueError, match="unknown flite voice 'nosuchvoice'.*kal16"):
        FliteSynthesizer(voice="nosuchvoice")


def test_missing_binary(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EngineNotFound, match=r"flite is not installed: apt-get update && apt-get install -y flite"):
        FliteSynthesizer()


def test_from_params():
    synthesizer = SpeechSynthesizer.from_params(Params({"type": "flite", "voice": "rms"}))
    assert isinstance(synthesizer, FliteSynthesizer) and synthesizer.voice == "rms"
