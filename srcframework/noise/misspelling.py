import os
import re
from typing import Dict, List, Optional

from allennlp.common.file_utils import cached_path

from srcframework.common.errors import InputError, InputFileNotFound
from srcframework.noise.noise_source import NoiseSource, absolute_path, question_rng

# Wikipedia's list of common misspellings (CC BY-SA), in the shared data folder
DEFAULT_LIST_NAME = os.path.join("misspellings", "wikipedia_common_misspellings.txt")


def default_list() -> str:
    """The absolute path (links resolved) of Wikipedia's list in the data folder `SHARED_DATA`
    names (default `../shared/data`, from the working directory, as the training configs read it)."""
    return os.path.realpath(os.path.join(os.environ.get("SHARED_DATA", "../shared/data"), DEFAULT_LIST_NAME))

def shared_data_hint(path: str) -> str:
    """What to say after a missing list that lies (or would lie) in the shared data folder: which
    folder `SHARED_DATA` names now, and that setting it points there."""
    shared = os.environ.get("SHARED_DATA")
    folder = os.path.realpath(shared or "../shared/data")
    inside = os.path.realpath(str(path)).startswith(folder + os.sep) or str(path).endswith(DEFAULT_LIST_NAME)
    if not inside:
        return ""
    where = f"SHARED_DATA={shared}" if shared else "SHARED_DATA is not set, so ../shared/data from the working directory"
    return (f": it is read from the shared data folder ({where}, which is {folder}); set SHARED_DATA to the folder "
            f"that holds {DEFAULT_LIST_NAME}")


# A word: letters and digits, with inner apostrophes or hyphens (`didn't`, `Carnegie-Mellon`).
WORD = re.compile(r"[^\W_]+(?:['\u2019-][^\W_]+)*")


def read_misspellings(path: str) -> Dict[str, List[str]]:
    """
    Correct word (lowercased) -> its misspellings, in file order, from a `wrong->right` list (one
    pair a line; a right side may list several comma-separated options: `x->a, b`). Blank lines and
    lines starting with `#` are skipped, and so are right sides of more than one word, which cannot
    replace a single word. A malformed line raises an `InputError` (a `ValueError`) naming the file and line.
    """
    try:
        local_path = cached_path(path)
    except FileNotFoundError:
        raise InputFileNotFound(f"misspelling list {path!r} not found{shared_data_hint(path)}") from None
    misspellings: Dict[str, List[str]] = {}
    with open(local_path, encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            wrong, arrow, rights = line.partition("->")
            wrong = wrong.strip()
            options = [right.strip() for right in rights.split(",")]
            if not arrow or not wrong or not all(options):
                raise InputError(f"{path}, line {line_number}: expected 'wrong->right[, right...]', got {line!r}")
            for right in options:
                if len(right.split()) != 1 or right.lower() == wrong.lower():
                    continue
                wrongs = misspellings.setdefault(right.lower(), [])
                if wrong not in wrongs:
                    wrongs.append(wrong)
    if not misspellings:
        raise InputError(f"{path}: no usable 'wrong->right' pairs")
    return misspellings


def match_case(word: str, replacement: str) -> str:
    """`replacement` in the case pattern of `word`: UPPER, Title, or as it is."""
    if len(word) > 1 and word.isupper():
        return replacement.upper()
    if word[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


@NoiseSource.register("misspelling")
class MisspellingNoise(NoiseSource):
    """
    Common human misspellings: each word that has a known misspelling in a `wrong->right` list
    (such as Wikipedia's list of common misspellings) is replaced, with probability
    `word_probability`, by one of its misspellings chosen at random. The word's case pattern is
    kept (`Their` -> `Thier`, `THEIR` -> `THIER`); everything else in the question is kept exactly.

    Words are runs of letters and digits with inner apostrophes or hyphens, looked up lowercased.
    Entries whose right side has several words (`alot->a lot`) are not used.

    # Parameters

    path : `str`, optional (default = Wikipedia's list in the shared data folder)
        The `wrong->right` list, a path or URL (via `cached_path`), UTF-8, one pair a line;
        `x->a, b` gives `x` as a misspelling of both `a` and `b`. Without it, Wikipedia's list of
        common misspellings (4,279 lines, CC BY-SA) in the data folder `SHARED_DATA` names
        (`SHARED_DATA/misspellings/wikipedia_common_misspellings.txt`) is used; `describe()`
        records the absolute path either way.
    word_probability : `float`, optional (default = `1.0`)
        The probability that a word with a known misspelling is misspelled, in [0, 1].
    """

    def __init__(self, path: Optional[str] = None, word_probability: float = 1.0) -> None:
        if not 0.0 <= word_probability <= 1.0:
            raise InputError(f"misspelling noise: word_probability must be in [0, 1], got {word_probability!r}")
        self.path = default_list() if path is None else str(path)
        self.word_probability = float(word_probability)
        self.misspellings = read_misspellings(self.path)

    def noise(self, questions: List[str], seed: int = 0, ids: List[str] = None) -> List[str]:
        if isinstance(questions, str):
            raise TypeError("misspelling noise: expected a list of questions, got a single string")
        return [self.noise_one(question, seed) for question in questions]

    def noise_one(self, question: str, seed: int = 0) -> str:
        if not isinstance(question, str):
            raise TypeError(f"misspelling noise: expected a question string, got {type(question).__name__}")
        rng = question_rng(seed, question, "misspelling")

        def replace(match) -> str:
            word = match.group(0)
            wrongs = self.misspellings.get(word.lower())
            if not wrongs or rng.random() >= self.word_probability:
                return word
            return match_case(word, rng.choice(wrongs))

        return WORD.sub(replace, question)

    def describe(self) -> dict:
        return {"type": "misspelling", "path": absolute_path(self.path), "word_probability": self.word_probability}
