from typing import Optional, Tuple

import numpy

from srcframework.common.errors import InputError
from srcframework.speech.engines import EngineNotFound, SpeechSynthesizer

INSTALL_HINT = "hibari-tts is not installed: pip install hibari-tts (make install does)"


@SpeechSynthesizer.register("hibari")
class HibariSynthesizer(SpeechSynthesizer):
    """
    Neural text to speech with `hibari-tts` (PyPI, Apache-2.0): a small ONNX model distilled from
    Kokoro, whose weights ship inside the package, so it runs offline on a CPU (about 70 ms a
    question here). Its one voice shipped offline, `heart`, is an American English female voice at
    24 kHz; the package's other voices are fetched from a model hub on first use, which this
    synthesizer refuses (an `InputError`) rather than reach the network. The model draws from a
    seed; a fixed `seed` makes the same text give the same waveform.

    # Parameters

    voice : `str`, optional (default = `"heart"`)
    seed : `int`, optional (default = `0`)
    speed : `float`, optional (default = `1.0`)
        The speaking rate, within [0.5, 2.0].
    threads : `int`, optional (default = `1`)
        ONNX Runtime's threads.
    """

    OFFLINE_VOICES = ("heart",)

    def __init__(self, voice: str = "heart", seed: int = 0, speed: float = 1.0, threads: int = 1) -> None:
        if voice not in self.OFFLINE_VOICES:
            raise InputError(f"hibari voice {voice!r} is not shipped in the package (offline: {', '.join(self.OFFLINE_VOICES)})")
        if not 0.5 <= float(speed) <= 2.0:
            raise InputError(f"hibari: speed must be within [0.5, 2.0], got {speed!r}")
        self.voice, self.seed, self.speed, self.threads = voice, int(seed), float(speed), int(threads)
        self._model: Optional[object] = None

    def _loaded(self):
        if self._model is None:
            try:
                from hibari import Hibari
            except ImportError:
                raise EngineNotFound(INSTALL_HINT) from None
            self._model = Hibari(threads=self.threads)
        return self._model

    def synthesize(self, text: str) -> Tuple[numpy.ndarray, int]:
        text = " ".join(str(text).split())
        if not any(character.isalnum() for character in text):
            return numpy.zeros(0, dtype=numpy.float32), 24000
        waveform = self._loaded()(text, seed=self.seed, speed=self.speed)
        waveform = numpy.clip(numpy.asarray(waveform, dtype=numpy.float32).reshape(-1), -1.0, 1.0)
        return waveform, 24000
