import copy
import logging
import random
from typing import List

from allennlp.common.checks import ConfigurationError
from allennlp.data import Instance
from allennlp.data.fields import TextField

from srcframework.data.question_controls.question_control import (
    QuestionControl,
    by_paragraph,
    check_question_fields,
    with_question,
)

logger = logging.getLogger(__name__)


def derangement(size: int, rng: random.Random) -> List[int]:
    """A uniformly drawn cyclic permutation of `range(size)` (Sattolo's algorithm): no position
    keeps its own item, for any `size` of at least 2."""
    order = list(range(size))
    for i in range(size - 1, 0, -1):
        j = rng.randrange(i)
        order[i], order[j] = order[j], order[i]
    return order


@QuestionControl.register("swapped_question")
class SwappedQuestion(QuestionControl):
    """
    Each question gets the input of *another question of the same paragraph*: a seeded cyclic
    derangement within each paragraph, so no question keeps its own input and every input is used
    once. Audio for a spoken set, text for a typed or transcribed set. A model that answers from
    the context alone (answer types, positions) scores the same here as on the matched set; a
    model that listens loses the questions whose answer depends on what was asked.

    A paragraph with one question has no other question to take: its question is left out of the
    swapped set, counted in `last_left_out` and logged (the study's paired comparisons then run
    over the questions both sets hold; XQuAD-en has 3 such paragraphs of 240).

    # Parameters

    seed : `int`, optional (default = `0`)
        The seed of the derangements; each paragraph's draw depends on the seed and the paragraph's
        position among the paragraphs read.
    """

    def __init__(self, seed: int = 0) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ConfigurationError(f"swapped_question: seed must be a whole number, got {seed!r}")
        self.seed = seed
        self.last_left_out = 0

    def apply(self, instances: List[Instance]) -> List[Instance]:
        check_question_fields(instances, "swapped_question")
        replaced = {}
        left_out = 0
        for index, positions in enumerate(by_paragraph(instances).values()):
            if len(positions) < 2:
                left_out += len(positions)
                continue
            rng = random.Random(f"swapped_question\x1f{self.seed}\x1f{index}")
            order = derangement(len(positions), rng)
            for target, source in zip(positions, (positions[k] for k in order)):
                donor = instances[source]
                field = copy.deepcopy(donor["question"])
                text = donor["metadata"].metadata.get("question") if isinstance(field, TextField) else None
                note = {"type": "swapped_question", "question_from": str(donor["metadata"].metadata.get("id"))}
                replaced[target] = with_question(instances[target], field, note, text)
        self.last_left_out = left_out
        if left_out:
            logger.info("swapped_question: %d questions left out (the only question of their paragraph)", left_out)
        return [replaced[position] for position in range(len(instances)) if position in replaced]

    def describe(self) -> dict:
        return {"type": "swapped_question", "seed": self.seed}
