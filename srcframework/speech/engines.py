"""The speech and translation engine abstractions. Implementations live beside this file, one a
file; they never import models, readers or noise sources."""
from typing import List, Tuple

import numpy
from allennlp.common import Registrable
from allennlp.common.checks import ConfigurationError


class EngineNotFound(ConfigurationError, RuntimeError):
    """An engine's program or package is missing; the message says how to install it. A
    `ConfigurationError`, so the command line prints it as one line, and still a `RuntimeError`."""


class SpeechSynthesizer(Registrable):
    """Text to speech. `synthesize(text) -> (float32 mono waveform in [-1, 1], sample_rate)`."""

    def synthesize(self, text: str) -> Tuple[numpy.ndarray, int]:
        raise NotImplementedError


class SpeechRecognizer(Registrable):
    """Speech to text. `transcribe(waveforms, sample_rate) -> transcripts`, one per waveform
    (float32 mono in [-1, 1]); implementations resample to the rate their model needs."""

    def transcribe(self, waveforms: List[numpy.ndarray], sample_rate: int) -> List[str]:
        raise NotImplementedError


class Translator(Registrable):
    """Text to text in another language. `translate(texts) -> translations`, one per text."""

    def translate(self, texts: List[str]) -> List[str]:
        raise NotImplementedError
