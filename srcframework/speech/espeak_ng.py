import os
import shutil
import subprocess
import tempfile
from typing import Tuple

import numpy

from srcframework.common.audio import read_wav
from srcframework.common.errors import InputError
from srcframework.speech.engines import EngineNotFound, SpeechSynthesizer

INSTALL_HINT = "espeak-ng is not installed: apt-get update && apt-get install -y espeak-ng"
EMPTY_RATE = 22050  # the rate of espeak-ng's own voices, reported with the empty waveform of empty text


@SpeechSynthesizer.register("espeak_ng")
class EspeakNgSynthesizer(SpeechSynthesizer):
    """
    Text to speech with the eSpeak NG program (`espeak-ng -v VOICE -s SPEED -w out.wav`, the text
    on standard input). Deterministic; output is 22050 Hz for the built-in voices. Text with
    nothing to say gives an empty waveform.

    # Parameters

    voice : `str`, optional (default = `"en-us"`)
        A voice `espeak-ng --voices` lists; an unknown one raises an `InputError` (a `ValueError`).
    speed : `int`, optional (default = `160`)
        Words per minute.
    """

    def __init__(self, voice: str = "en-us", speed: int = 160) -> None:
        self.voice = voice
        self.speed = speed
        if int(speed) != speed or speed <= 0:
            raise InputError(f"espeak-ng: speed must be a positive number of words per minute, got {speed!r}")
        if shutil.which("espeak-ng") is None:
            raise EngineNotFound(INSTALL_HINT)
        check = subprocess.run(["espeak-ng", "-v", voice, "-q", ""], capture_output=True, text=True)
        if check.returncode != 0:
            raise InputError(f"unknown espeak-ng voice {voice!r} ({check.stderr.strip()}); see `espeak-ng --voices`")

    def synthesize(self, text: str) -> Tuple[numpy.ndarray, int]:
        with tempfile.TemporaryDirectory(prefix="espeak-ng-") as folder:
            path = os.path.join(folder, "speech.wav")
            command = ["espeak-ng", "-v", self.voice, "-s", str(int(self.speed)), "-w", path, "--stdin"]
            try:
                result = subprocess.run(command, input=" ".join(text.split()), capture_output=True, text=True)
            except FileNotFoundError:
                raise EngineNotFound(INSTALL_HINT) from None
            if result.returncode != 0:
                raise RuntimeError(f"espeak-ng failed (exit {result.returncode}) on {text!r}: {result.stderr.strip()}")
            if not os.path.exists(path):  # espeak-ng writes no file for empty input
                return numpy.zeros(0, dtype=numpy.float32), EMPTY_RATE
            return read_wav(path, allow_empty=True)
