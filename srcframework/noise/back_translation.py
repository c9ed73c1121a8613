from typing import List, Optional

from srcframework.noise.noise_source import NoiseSource, registered_config
from srcframework.speech.apertium import ApertiumTranslator
from srcframework.speech.engines import Translator


@NoiseSource.register("back_translation")
class BackTranslationNoise(NoiseSource):
    """
    Translation noise: each question is machine-translated into a pivot language and back, as a
    question asked in another language and machine-translated would arrive. Both directions
    translate all questions as one batch.

    The translators are deterministic, so the noise is too: `seed` changes nothing. `ids` are
    ignored. Each call starts both translators' processes (apertium: about a tenth of a second
    each), so `allennlp noise` gives it 256 questions a call (`batch_size`) rather than 16.

    # Parameters

    forward : `Translator`, optional (default = `apertium` with pair `eng-spa`)
        Source language to pivot language.
    backward : `Translator`, optional (default = `apertium` with pair `spa-eng`)
        Pivot language back to the source language.
    """

    batch_size = 256

    def __init__(self, forward: Optional[Translator] = None, backward: Optional[Translator] = None) -> None:
        self.forward = forward if forward is not None else ApertiumTranslator(pair="eng-spa")
        self.backward = backward if backward is not None else ApertiumTranslator(pair="spa-eng")

    def noise(self, questions: List[str], seed: int = 0, ids: List[str] = None) -> List[str]:
        pivot = self.forward.translate(list(questions))
        noised = self.backward.translate(pivot)
        if len(pivot) != len(questions) or len(noised) != len(questions):
            raise RuntimeError(
                f"back translation returned {len(pivot)} then {len(noised)} texts for {len(questions)} questions"
            )
        return noised

    def describe(self) -> dict:
        return {
            "type": "back_translation",
            "forward": registered_config(self.forward, Translator),
            "backward": registered_config(self.backward, Translator),
        }
