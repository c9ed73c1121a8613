import inspect
from typing import List, Optional

from allennlp.common import Registrable

from srcframework.noise.noise_source import NoiseSource
from srcframework.speech.audio import resample
from srcframework.speech.engines import SpeechRecognizer, SpeechSynthesizer
from srcframework.speech.flite import FliteSynthesizer
from srcframework.speech.pocketsphinx_asr import PocketsphinxRecognizer

SAMPLE_RATE = 16000
CHUNK_SIZE = 64  # questions synthesised before they are handed to the recogniser, to bound memory


def engine_config(engine: Registrable, base: type) -> dict:
    """
    `{"type": registered name, argument: value...}` of an engine registered under `base`, read from
    the attributes named like its constructor arguments (the house style), so that
    `base.from_params(Params(engine_config(engine, base)))` builds it again.
    """
    names = [name for name, (cls, _) in Registrable._registry[base].items() if cls is type(engine)]
    config = {"type": names[0] if names else type(engine).__name__}
    for name in list(inspect.signature(type(engine).__init__).parameters)[1:]:
        if hasattr(engine, name) and not name.startswith("_"):
            config[name] = getattr(engine, name)
    return config


@NoiseSource.register("asr")
class AsrNoise(NoiseSource):
    """
    Spoken-question noise: each question is synthesised (text to speech), resampled to 16 kHz and
    transcribed by a speech recogniser, as if it had been asked aloud. The recogniser gets the
    questions in batches.

    The engines are deterministic, so the noise is too: `seed` changes nothing and a question's
    transcript does not depend on the other questions. `ids` are ignored.

    When the recogniser hears nothing (or the question has nothing to say, e.g. it is empty),
    the noised question is the empty string: that is the noise a spoken interface really makes,
    so it is kept rather than replaced by the clean question. Transcripts are lowercase and
    unpunctuated, as recognisers give them.

    # Parameters

    synthesizer : `SpeechSynthesizer`, optional (default = `flite` with voice `kal16`)
    recognizer : `SpeechRecognizer`, optional (default = `pocketsphinx` with its US-English model)
    """

    def __init__(
        self, synthesizer: Optional[SpeechSynthesizer] = None, recognizer: Optional[SpeechRecognizer] = None
    ) -> None:
        self.synthesizer = synthesizer if synthesizer is not None else FliteSynthesizer(voice="kal16")
        self.recognizer = recognizer if recognizer is not None else PocketsphinxRecognizer()

    def noise(self, questions: List[str], seed: int = 0, ids: List[str] = None) -> List[str]:
        noised: List[str] = []
        for start in range(0, len(questions), CHUNK_SIZE):
            waveforms = [self.speak(question) for question in questions[start : start + CHUNK_SIZE]]
            noised.extend(self.recognizer.transcribe(waveforms, SAMPLE_RATE))
        if len(noised) != len(questions):
            raise RuntimeError(f"the recogniser returned {len(noised)} transcripts for {len(questions)} questions")
        return noised

    def speak(self, question: str):
        """The question synthesised and resampled to 16 kHz (float32 mono)."""
        waveform, rate = self.synthesizer.synthesize(question)
        return resample(waveform, rate, SAMPLE_RATE)

    def describe(self) -> dict:
        return {
            "type": "asr",
            "synthesizer": engine_config(self.synthesizer, SpeechSynthesizer),
            "recognizer": engine_config(self.recognizer, SpeechRecognizer),
        }
