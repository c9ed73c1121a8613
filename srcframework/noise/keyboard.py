import re
from typing import Dict, List

from srcframework.common.errors import InputError
from srcframework.noise.noise_source import NoiseSource, question_rng

QWERTY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def row_neighbours(rows=QWERTY_ROWS) -> Dict[str, str]:
    """Letter -> the keys left and right of it on the same row (edge keys have one)."""
    neighbours = {}
    for row in rows:
        for i, key in enumerate(row):
            neighbours[key] = row[max(0, i - 1) : i] + row[i + 1 : i + 2]
    return neighbours


NEIGHBOURS = row_neighbours()


@NoiseSource.register("keyboard")
class KeyboardNoise(NoiseSource):
    """
    Keyboard typos as in NoiseQA's synthetic keyboard set (Ravichander et al., 2021): each word is
    corrupted with probability `word_probability` by replacing one of its letters, chosen at
    random, with the key left or right of it on the same QWERTY row (`q`, `p`, `a`, `l`, `z` and
    `m` have one such neighbour). The replaced letter keeps its case; whitespace, punctuation and
    digits are kept exactly.

    A word is a whitespace-separated token with at least one ASCII letter (`1970s` is one, with one
    candidate letter); tokens of digits or punctuation only are never corrupted.

    Differences from NoiseQA's released file: NoiseQA only ever replaced lowercase letters, never
    touched one-letter words (`a`), and collapsed runs of whitespace; here uppercase letters are
    replaced too (case kept), every word is eligible and whitespace is left as it was.

    # Parameters

    word_probability : `float`, optional (default = `0.25`)
        The probability that a word gets a typo, in [0, 1].
    """

    def __init__(self, word_probability: float = 0.25) -> None:
        if not 0.0 <= word_probability <= 1.0:
            raise InputError(f"keyboard noise: word_probability must be in [0, 1], got {word_probability!r}")
        self.word_probability = float(word_probability)

    def noise(self, questions: List[str], seed: int = 0, ids: List[str] = None) -> List[str]:
        if isinstance(questions, str):
            raise TypeError("keyboard noise: expected a list of questions, got a single string")
        return [self.noise_one(question, seed) for question in questions]

    def noise_one(self, question: str, seed: int = 0) -> str:
        if not isinstance(question, str):
            raise TypeError(f"keyboard noise: expected a question string, got {type(question).__name__}")
        rng = question_rng(seed, question, "keyboard")
        pieces = re.split(r"(\s+)", question)  # odd indices hold the whitespace, kept as it is
        for index in range(0, len(pieces), 2):
            token = pieces[index]
            letters = [i for i, char in enumerate(token) if char.lower() in NEIGHBOURS]
            if not letters or rng.random() >= self.word_probability:
                continue
            position = rng.choice(letters)
            char = token[position]
            typo = rng.choice(NEIGHBOURS[char.lower()])
            typo = typo.upper() if char.isupper() else typo
            pieces[index] = token[:position] + typo + token[position + 1 :]
        return "".join(pieces)

    def describe(self) -> dict:
        return {"type": "keyboard", "word_probability": self.word_probability}
