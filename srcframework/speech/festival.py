import os
import shutil
import subprocess
import tempfile
from typing import List, Tuple

import numpy

from srcframework.common.audio import read_wav
from srcframework.common.errors import InputError
from srcframework.speech.engines import EngineNotFound, SpeechSynthesizer

INSTALL_HINT = (
    "festival is not installed: apt-get update && apt-get install -y festival "
    "festvox-kallpc16k festvox-kdlpc16k festvox-us-slt-hts"
)
EMPTY_RATE = 16000  # the rate reported with the empty waveform of text with nothing to say


def festival_voices(program: str = "festival") -> List[str]:
    """The voices Festival lists (`(voice.list)`), e.g. kal_diphone, ked_diphone, cmu_us_slt_arctic_hts."""
    output = subprocess.run([program, "-b", "(print (voice.list))"], capture_output=True, text=True, check=True).stdout
    return output.strip().strip("()").split()


@SpeechSynthesizer.register("festival")
class FestivalSynthesizer(SpeechSynthesizer):
    """
    Text to speech with the Festival Speech Synthesis System (`text2wave -eval '(voice_VOICE)'`,
    the text from a file). Deterministic: the same text always gives the same waveform. The
    Debian voices are diphone voices at 16 kHz (kal_diphone from festvox-kallpc16k, US male;
    ked_diphone from festvox-kdlpc16k, US male) and an HTS voice at 32 kHz
    (cmu_us_slt_arctic_hts from festvox-us-slt-hts, US female). Text with nothing to say gives an
    empty waveform.

    # Parameters

    voice : `str`, optional (default = `"kal_diphone"`)
        A voice `(voice.list)` lists; an unknown one raises an `InputError` (a `ValueError`)
        naming the installed ones.
    """

    def __init__(self, voice: str = "kal_diphone") -> None:
        self.voice = voice
        program = shutil.which("festival")
        if program is None or shutil.which("text2wave") is None:
            raise EngineNotFound(INSTALL_HINT)
        voices = festival_voices(program)
        if voice not in voices:
            raise InputError(f"unknown festival voice {voice!r}; installed: {', '.join(voices) or 'none'} ({INSTALL_HINT.split(': ', 1)[1]})")

    def synthesize(self, text: str) -> Tuple[numpy.ndarray, int]:
        if not any(character.isalnum() for character in text):  # festival crashes on nothing to say
            return numpy.zeros(0, dtype=numpy.float32), EMPTY_RATE
        with tempfile.TemporaryDirectory(prefix="festival-") as folder:
            source, path = os.path.join(folder, "text.txt"), os.path.join(folder, "speech.wav")
            with open(source, "w", encoding="utf-8") as handle:
                handle.write(text)
            try:
                result = subprocess.run(
                    ["text2wave", "-eval", f"(voice_{self.voice})", "-o", path, source], capture_output=True, text=True
                )
            except FileNotFoundError:
                raise EngineNotFound(INSTALL_HINT) from None
            if result.returncode != 0 or not os.path.isfile(path):
                raise RuntimeError(f"festival failed (exit {result.returncode}) on {text!r}: {result.stderr.strip()[-300:]}")
            return read_wav(path, allow_empty=True)
