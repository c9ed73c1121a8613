import numpy
import pytest

from srcframework.common.errors import InputError
from srcframework.speech.piper import PiperSynthesizer

pytest.importorskip("piper", reason="needs piper-tts (make install)")


def test_the_packaged_voice_speaks_the_same_waveform_for_the_same_text():
    synthesizer = PiperSynthesizer()
    waveform, rate = synthesizer.synthesize("Who founded the harbour of Velmont?")
    again, _ = synthesizer.synthesize("Who founded the harbour of Velmont?")
    assert rate == 22050 and waveform.dtype == numpy.float32 and 1.0 < waveform.size / rate < 5.0
    assert numpy.array_equal(waveform, again)
    slower, _ = PiperSynthesizer(length_scale=1.3).synthesize("Who founded the harbour of Velmont?")
    assert slower.size > waveform.size


def test_a_missing_voice_package_and_bad_scales_are_one_line():
    with pytest.raises(InputError, match="piper voice package 'no_such_voice' is not installed"):
        PiperSynthesizer(voice="no_such_voice").synthesize("Hello?")
    with pytest.raises(InputError, match="length_scale must be positive"):
        PiperSynthesizer(length_scale=0)
