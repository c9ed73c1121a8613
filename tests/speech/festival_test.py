"""The Festival synthesizer: real speech from the Debian voices, nothing for nothing to say, and
one-line errors for an unknown voice or a missing engine."""
import shutil

import numpy
import pytest

from srcframework.common.errors import InputError
from srcframework.speech import festival
from srcframework.speech.engines import EngineNotFound
from srcframework.speech.festival import FestivalSynthesizer

needs_festival = pytest.mark.skipif(
    shutil.which("text2wave") is None, reason="festival is not installed (apt-get install -y festival festvox-kallpc16k)"
)


@needs_festival
def test_speaks_a_question_deterministically():
    synthesizer = FestivalSynthesizer("kal_diphone")
    waveform, rate = synthesizer.synthesize("Where does Ada live?")
    assert rate == 16000 and waveform.dtype == numpy.float32
    assert 0.5 < waveform.size / rate < 5 and numpy.abs(waveform).max() > 0.05
    again, _ = synthesizer.synthesize("Where does Ada live?")
    assert numpy.array_equal(waveform, again)


@needs_festival
def test_nothing_to_say_is_an_empty_waveform():
    waveform, rate = FestivalSynthesizer().synthesize("...")
    assert waveform.size == 0 and rate == 16000


@needs_festival
def test_an_unknown_voice_names_the_installed_ones():
    with pytest.raises(InputError, match="unknown festival voice 'nobody'; installed: .*kal_diphone"):
        FestivalSynthesizer("nobody")


def test_a_missing_engine_is_one_line_with_the_install_command(monkeypatch):
    monkeypatch.setattr(festival.shutil, "which", lambda name: None)
    with pytest.raises(EngineNotFound, match="festival is not installed: apt-get update && apt-get install -y festival"):
        FestivalSynthesizer()
