import numpy
import pytest

from srcframework.common.errors import InputError
from srcframework.speech.hibari import HibariSynthesizer

pytest.importorskip("hibari", reason="needs hibari-tts (make install)")


def test_the_shipped_voice_speaks_the_same_waveform_for_the_same_text():
    synthesizer = HibariSynthesizer()
    waveform, rate = synthesizer.synthesize("Who founded the harbour of Velmont?")
    again, _ = synthesizer.synthesize("Who  founded the harbour of Velmont?")
    assert rate == 24000 and waveform.dtype == numpy.float32 and 1.0 < waveform.size / rate < 5.0
    assert numpy.array_equal(waveform, again)
    other, _ = HibariSynthesizer(seed=1).synthesize("Who founded the harbour of Velmont?")
    assert not numpy.array_equal(waveform, other)


def test_nothing_to_say_is_an_empty_waveform():
    waveform, rate = HibariSynthesizer().synthesize(" ?! ")
    assert waveform.size == 0 and rate == 24000


def test_a_voice_the_package_would_download_is_refused_in_one_line():
    with pytest.raises(InputError, match="hibari voice 'emma' is not shipped in the package"):
        HibariSynthesizer(voice="emma")
    with pytest.raises(InputError, match="speed must be within"):
        HibariSynthesizer(speed=3)
