import hashlib
import random
from typing import List

from allennlp.common import Registrable


def question_rng(seed: int, question: str, salt: str = "") -> random.Random:
    """A random generator that depends only on (seed, question text, salt): the same question gets
    the same noise whatever the batching, order, sharding or number of workers."""
    digest = hashlib.sha256(f"{seed}\x1f{salt}\x1f{question}".encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


class NoiseSource(Registrable):
    """
    Turns clean questions into noised ones, as an interface (keyboard, ASR, machine translation)
    would. `noise(questions, seed)` returns one noised question per input, in order, and is
    deterministic given the seed: each question's randomness comes from `question_rng(seed,
    question)`, so results do not depend on how the questions are batched. Sources whose engine
    works in batches (ASR, MT) process the list together.

    `ids` (optional, same length as `questions`) lets sources that look noise up by question id
    (`natural`) find it; others ignore it.
    """

    default_implementation = None

    def noise(self, questions: List[str], seed: int = 0, ids: List[str] = None) -> List[str]:
        raise NotImplementedError

    def describe(self) -> dict:
        """The source's configuration, recorded in challenge-set files next to the noised questions."""
        return {"type": self.__class__.__name__}
