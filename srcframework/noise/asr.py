import hashlib
from typing import List, Optional

from allennlp.common.checks import ConfigurationError

from srcframework.noise.noise_source import NoiseSource, registered_config
from srcframework.common.audio import resample
from srcframework.speech.engines import SpeechRecognizer, SpeechSynthesizer
from srcframework.speech.flite import FliteSynthesizer
from srcframework.speech.pocketsphinx_asr import PocketsphinxRecognizer

SAMPLE_RATE = 16000
CHUNK_SIZE = 64  # questions synthesised before they are handed to the recogniser, to bound memory


@NoiseSource.register("asr")
class AsrNoise(NoiseSource):
    """
    Spoken-question noise: each question is synthesised (text to speech), resampled to 16 kHz and
    transcribed by a speech recogniser, as if it had been asked aloud. The recogniser gets the
    questions in batches.

    The engines are deterministic, so the noise is too: `seed` changes nothing and a question's
    transcript does not depend on the other questions.

    With several `synthesizers` (e.g. four flite voices), the questions are dealt over them, so
    that training noise is not one voice's: each question's voice is fixed by a hash of its id
    (of its text when no `ids` are given), whatever the batching, order or sharding.

    When the recogniser hears nothing (or the question has nothing to say, e.g. it is empty),
    the noised question is the empty string: that is the noise a spoken interface really makes,
    so it is kept rather than replaced by the clean question. Transcripts are lowercase and
    unpunctuated, as recognisers give them.

    # Parameters

    synthesizer : `SpeechSynthesizer`, optional (default = `flite` with voice `kal16`)
    recognizer : `SpeechRecognizer`, optional (default = `pocketsphinx` with its US-English model)
    synthesizers : `List[SpeechSynthesizer]`, optional
        Several voices to deal the questions over, instead of one `synthesizer`.
    """

    def __init__(
        self,
        synthesizer: Optional[SpeechSynthesizer] = None,
        recognizer: Optional[SpeechRecognizer] = None,
        synthesizers: Optional[List[SpeechSynthesizer]] = None,
    ) -> None:
        if synthesizer is not None and synthesizers:
            raise ConfigurationError("asr noise takes `synthesizer` or `synthesizers`, not both")
        if synthesizers is not None and len(synthesizers) == 0:
            raise ConfigurationError("asr noise: `synthesizers` is empty")
        self.synthesizers = list(synthesizers) if synthesizers else None
        self.synthesizer = None if synthesizers else (synthesizer if synthesizer is not None else FliteSynthesizer(voice="kal16"))
        self.recognizer = recognizer if recognizer is not None else PocketsphinxRecognizer()

    def voice_for(self, key: str) -> SpeechSynthesizer:
        """The synthesizer that speaks the question with this id (or text)."""
        if not self.synthesizers:
            return self.synthesizer
        digest = hashlib.sha256(key.encode("utf-8")).digest()
        return self.synthesizers[int.from_bytes(digest[:8], "big") % len(self.synthesizers)]

    def noise(self, questions: List[str], seed: int = 0, ids: List[str] = None) -> List[str]:
        if ids is not None and len(ids) != len(questions):
            raise ValueError(f"asr noise got {len(ids)} ids for {len(questions)} questions")
        keys = list(ids) if ids is not None else list(questions)
        noised: List[str] = []
        for start in range(0, len(questions), CHUNK_SIZE):
            chunk = range(start, min(start + CHUNK_SIZE, len(questions)))
            waveforms = [self.speak(questions[i], self.voice_for(keys[i])) for i in chunk]
            noised.extend(self.recognizer.transcribe(waveforms, SAMPLE_RATE))
        if len(noised) != len(questions):
            raise RuntimeError(f"the recogniser returned {len(noised)} transcripts for {len(questions)} questions")
        return noised

    def speak(self, question: str, synthesizer: Optional[SpeechSynthesizer] = None):
        """The question synthesised (by `synthesizer`, default the first voice) and resampled to 16 kHz (float32 mono)."""
        synthesizer = synthesizer or self.voice_for(question)
        waveform, rate = synthesizer.synthesize(question)
        return resample(waveform, rate, SAMPLE_RATE)

    def describe(self) -> dict:
        config = {"type": "asr"}
        if self.synthesizers:
            config["synthesizers"] = [registered_config(engine, SpeechSynthesizer) for engine in self.synthesizers]
        else:
            config["synthesizer"] = registered_config(self.synthesizer, SpeechSynthesizer)
        config["recognizer"] = registered_config(self.recognizer, SpeechRecognizer)
        return config
