import math
from typing import List

from srcframework.common.errors import InputError, InputTypeError
from srcframework.noise.noise_source import NoiseSource, question_rng


@NoiseSource.register("mix")
class NoiseMix(NoiseSource):
    """
    A weighted mixture of noise sources: each question is left clean with probability
    `keep_clean`, and otherwise noised by ONE source, drawn according to `weights`. The draw uses
    `question_rng(seed, question, "mix")`, so it does not depend on batching. Each source is called
    once, with all the questions (and ids) it drew, in their order, so batched engines stay
    batched; a source that drew no question is not called. Results come back in input order.

    # Parameters

    sources : `List[NoiseSource]`
        At least one source.
    weights : `List[float]`, optional (default = equal weights)
        One non-negative weight per source, not all zero; they are normalised to sum to one.
    keep_clean : `float`, optional (default = `0.0`)
        The probability, in [0, 1], that a question is left unchanged.
    """

    def __init__(self, sources: List[NoiseSource], weights: List[float] = None, keep_clean: float = 0.0) -> None:
        if not sources:
            raise InputError("noise mix: sources must list at least one noise source")
        for index, source in enumerate(sources):
            if not isinstance(source, NoiseSource):
                raise InputTypeError(f"noise mix: sources[{index}] is a {type(source).__name__}, not a NoiseSource")
        weights = [1.0] * len(sources) if weights is None else [float(w) for w in weights]
        if len(weights) != len(sources):
            raise InputError(f"noise mix: {len(sources)} sources but {len(weights)} weights")
        if any(not math.isfinite(w) or w < 0 for w in weights) or sum(weights) <= 0:
            raise InputError(f"noise mix: weights must be finite, non-negative and not all zero, got {weights}")
        if not 0.0 <= keep_clean <= 1.0:
            raise InputError(f"noise mix: keep_clean must be in [0, 1], got {keep_clean!r}")
        self.sources = list(sources)
        self.weights = weights
        self.keep_clean = float(keep_clean)

    def choose(self, question: str, seed: int = 0) -> int:
        """The index of the source that noises `question`, or -1 when it stays clean."""
        rng = question_rng(seed, question, "mix")
        clean = rng.random() < self.keep_clean
        index = rng.choices(range(len(self.sources)), weights=self.weights)[0]
        return -1 if clean else index

    def noise(self, questions: List[str], seed: int = 0, ids: List[str] = None) -> List[str]:
        if isinstance(questions, str):
            raise TypeError("noise mix: expected a list of questions, got a single string")
        if ids is not None and len(ids) != len(questions):
            raise ValueError(f"noise mix: {len(questions)} questions but {len(ids)} ids")
        noised = list(questions)
        choices = [self.choose(question, seed) for question in questions]
        for index, source in enumerate(self.sources):
            positions = [i for i, choice in enumerate(choices) if choice == index]
            if not positions:
                continue
            subset_ids = None if ids is None else [ids[i] for i in positions]
            results = source.noise([questions[i] for i in positions], seed=seed, ids=subset_ids)
            if len(results) != len(positions):
                raise RuntimeError(
                    f"noise mix: source {index} ({type(source).__name__}) returned {len(results)} questions"
                    f" for {len(positions)}"
                )
            for position, result in zip(positions, results):
                noised[position] = result
        return noised

    def describe(self) -> dict:
        return {
            "type": "mix",
            "sources": [source.describe() for source in self.sources],
            "weights": self.weights,
            "keep_clean": self.keep_clean,
        }
