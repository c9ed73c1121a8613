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


@needs_festival
def test_the_kept_process_makes_what_text2wave_makes():
    import os
    import pickle
    import subprocess
    import tempfile

    from srcframework.common.audio import read_wav

    text = "What did the 1911 act say? Who signed it, and why!"
    with tempfile.TemporaryDirectory() as folder:
        source, path = os.path.join(folder, "t.txt"), os.path.join(folder, "o.wav")
        with open(source, "w", encoding="utf-8") as handle:
            handle.write(text)
        subprocess.run(["text2wave", "-eval", "(voice_kal_diphone)", "-o", path, source], check=True, capture_output=True)
        reference, reference_rate = read_wav(path, allow_empty=True)
    synthesizer = FestivalSynthesizer("kal_diphone")
    first, rate = synthesizer.synthesize(text)
    process = synthesizer._process
    second, _ = synthesizer.synthesize(text)
    assert rate == reference_rate and numpy.array_equal(first, reference) and numpy.array_equal(second, reference)
    assert synthesizer._process is process  # one process for both questions
    copy = pickle.loads(pickle.dumps(synthesizer))  # a worker's copy starts its own process
    assert copy._process is None and numpy.array_equal(copy.synthesize(text)[0], reference)
    synthesizer.close()
    copy.close()
    assert process.poll() is not None and synthesizer._process is None
