import shutil

import numpy
import pytest
from allennlp.common import Params

from srcframework.speech.engines import EngineNotFound, SpeechSynthesizer
from srcframework.speech.espeak_ng import EspeakNgSynthesizer

pytestmark = pytest.mark.skipif(
    shutil.which("espeak-ng") is None, reason="espeak-ng is not installed (apt-get install -y espeak-ng)"
)


def test_synthesize():
    waveform, rate = EspeakNgSynthesizer().synthesize("what is the capital of france")
    assert rate == 22050
    assert waveform.dtype == numpy.float32 and waveform.ndim == 1
    assert 0.8 < len(waveform) / rate < 5.0
    assert 0.05 < numpy.abs(waveform).max() <= 1.0
    assert numpy.array_equal(waveform, EspeakNgSynthesizer().synthesize("what is the capital of france")[0])


def test_speed_changes_duration():
    slow, _ = EspeakNgSynthesizer(speed=90).synthesize("the quick brown fox jumps over the lazy dog")
    fast, _ = EspeakNgSynthesizer(speed=300).synthesize("the quick brown fox jumps over the lazy dog")
    assert len(slow) > 1.8 * len(fast)


def test_empty_text_and_option_like_text():
    waveform, rate = EspeakNgSynthesizer().synthesize("")
    assert waveform.shape == (0,) and rate == 22050
    assert len(EspeakNgSynthesizer().synthesize("-w hello there")[0]) > 11025


def test_bad_settings():
    with pytest.raises(ValueError, match="unknown espeak-ng voice 'xx-nosuch'"):
        EspeakNgSynthesizer(voice="xx-nosuch")
    with pytest.raises(ValueError, match="speed"):
        EspeakNgSynthesizer(speed=0)


def test_missing_binary(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EngineNotFound, match="apt-get install -y espeak-ng"):
        EspeakNgSynthesizer()


def test_from_params():
    synthesizer = SpeechSynthesizer.from_params(Params({"type": "espeak_ng", "voice": "en-gb", "speed": 140}))
    assert isinstance(synthesizer, EspeakNgSynthesizer)
    assert (synthesizer.voice, synthesizer.speed) == ("en-gb", 140)
