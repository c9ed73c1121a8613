import os
import shutil
import subprocess
import tempfile
from typing import List, Tuple

import numpy

from srcframework.common.audio import read_wav
from srcframework.common.errors import InputError
from srcframework.speech.engines import EngineNotFound, SpeechSynthesizer

INSTALL_HINT = "flite is not installed: apt-get update && apt-get install -y flite"


def flite_voices(program: str = "flite") -> List[str]:
    """The voices `flite -lv` lists."""
    output = subprocess.run([program, "-lv"], capture_output=True, text=True, check=True).stdout
    return output.split(":", 1)[-1].split()


@SpeechSynthesizer.register("flite")
class FliteSynthesizer(SpeechSynthesizer):
    """
    Text to speech with the CMU Flite program (`flite -voice VOICE -t TEXT -o out.wav`). Flite is
    deterministic: the same text always gives the same waveform. Text with nothing to say (empty,
    punctuation only) gives an empty waveform.

    # Parameters

    voice : `str`, optional (default = `"kal16"`)
        A voice `flite -lv` lists (Debian: kal (8 kHz), kal16, awb, rms, slt (16 kHz)) or the path
        of a `.flitevox` file. Flite itself falls back to its default voice silently on an unknown
        name, so unknown names raise an `InputError` (a `ValueError`) here.
    """

    def __init__(self, voice: str = "kal16") -> None:
        self.voice = voice
        program = shutil.which("flite")
        if program is None:
            raise EngineNotFound(INSTALL_HINT)
        voices = flite_voices(program)
        if voice not in voices and not os.path.isfile(voice):
            raise InputError(f"unknown flite voice {voice!r}; `flite -lv` lists: {', '.join(voices)}")

    def synthesize(self, text: str) -> Tuple[numpy.ndarray, int]:
        with tempfile.TemporaryDirectory(prefix="flite-") as folder:
            path = os.path.join(folder, "speech.wav")
            try:
                result = subprocess.run(
                    ["flite", "-voice", self.voice, "-t", text, "-o", path], capture_output=True, text=True
                )
            except FileNotFoundError:
                raise EngineNotFound(INSTALL_HINT) from None
            if result.returncode != 0:
                raise RuntimeError(f"flite failed (exit {result.returncode}) on {text!r}: {result.stderr.strip()}")
            return read_wav(path, allow_empty=True)
