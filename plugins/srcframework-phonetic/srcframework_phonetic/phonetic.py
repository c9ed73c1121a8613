"""`phonetic` noise: words swapped for ones that sound the same or nearly the same."""
import functools
import importlib.util
import os
import re
from typing import Dict, List, Optional, Tuple

from srcframework.noise.noise_source import NoiseSource, question_rng

DICTIONARY_NAME = "cmudict-en-us.dict"

# A word of a question: letters with inner apostrophes ("they're"), not part of a longer token
# ("3rd", "e-mail" is two words) nor of a dotted abbreviation ("U.S.").
WORD = re.compile(r"(?<![\w'’])(?<![A-Za-z]\.)[A-Za-z]+(?:['’][A-Za-z]+)*(?![\w'’])(?!\.[A-Za-z])")
# Dictionary entries that may replace a word: the same shape, lower case.
CLEAN_ENTRY = re.compile(r"[a-z]+(?:'[a-z]+)*")
ALTERNATE = re.compile(r"\(\d+\)$")


def default_dictionary_path() -> str:
    """The CMU pronouncing dictionary shipped in pocketsphinx's model directory."""
    candidates = []
    try:
        import pocketsphinx

        candidates.append(pocketsphinx.get_model_path(os.path.join("en-us", DICTIONARY_NAME)))
    except ImportError:
        pass
    spec = importlib.util.find_spec("pocketsphinx")
    if spec is not None and spec.submodule_search_locations:
        candidates.append(os.path.join(spec.submodule_search_locations[0], "model", "en-us", DICTIONARY_NAME))
    for path in candidates:
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(
        f"{DICTIONARY_NAME} not found (looked at {candidates or 'nothing: pocketsphinx is not installed'}); "
        "install pocketsphinx>=5 (`pip install 'pocketsphinx>=5'`) or pass `dictionary_path`"
    )


class PhoneIndex:
    """
    The words of a pronouncing dictionary indexed by pronunciation. Each phone is encoded as one
    ASCII character, so a pronunciation is a short string and a dictionary key. Homophones share a
    key; the words one phone substitution away are found by trying each phone of the inventory
    (39 in CMUdict) at each position, a few hundred look-ups per word, cached. This needs no
    second index: one keyed by every pronunciation with a position wildcarded would give the same
    answers a little faster per new word but holds some 650k extra keys (measured: about 3x the
    memory and the load time).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._pronunciations: Dict[str, List[str]] = {}
        self._words: Dict[str, List[str]] = {}
        self._confusions: Dict[str, Tuple[str, ...]] = {}
        codes: Dict[str, str] = {}
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                fields = line.split("#", 1)[0].split()
                word = ALTERNATE.sub("", fields[0]) if fields else ""
                if len(fields) < 2 or not CLEAN_ENTRY.fullmatch(word):
                    continue
                phones = "".join(codes.setdefault(phone, chr(0x30 + len(codes))) for phone in fields[1:])
                known = self._pronunciations.setdefault(word, [])
                if phones not in known:
                    known.append(phones)
                    self._words.setdefault(phones, []).append(word)
        if not self._pronunciations:
            raise ValueError(f"{path}: no `word PHONE PHONE ...` lines found")
        self._phones = "".join(codes.values())

    def __contains__(self, word: str) -> bool:
        return word in self._pronunciations

    def confusions(self, word: str) -> Tuple[str, ...]:
        """Sorted homophones of a lower-case word (same phones, other spelling); when it has none,
        the words one phone substitution away; `()` for words not in the dictionary. Cached."""
        if word not in self._pronunciations:
            return ()
        if word not in self._confusions:
            self._confusions[word] = self._find_confusions(word)
        return self._confusions[word]

    def _find_confusions(self, word: str) -> Tuple[str, ...]:
        pronunciations = self._pronunciations[word]
        homophones = {other for phones in pronunciations for other in self._words[phones]}
        homophones.discard(word)
        if homophones:
            return tuple(sorted(homophones))
        neighbours = set()
        for phones in pronunciations:
            for i, own in enumerate(phones):
                before, after = phones[:i], phones[i + 1 :]
                for phone in self._phones:
                    if phone != own:
                        neighbours.update(self._words.get(before + phone + after, ()))
        neighbours.discard(word)
        return tuple(sorted(neighbours))


@functools.lru_cache(maxsize=4)
def load_index(path: str) -> PhoneIndex:
    """The index of a dictionary file, built once per path."""
    return PhoneIndex(path)


def match_case(replacement: str, original: str) -> str:
    """`replacement` written in the case (and apostrophe style) of `original`."""
    if "’" in original:
        replacement = replacement.replace("'", "’")
    if original.isupper() and len(original) > 1:
        return replacement.upper()
    if original[0].isupper():
        return replacement[0].upper() + replacement[1:]
    return replacement


class PhoneticNoise(NoiseSource):
    """
    Phonetic confusions, as a listener (or a speech recognizer) makes them: each word of the CMU
    pronouncing dictionary that has a confusion is, with probability `word_probability`, replaced
    by a homophone ("their" -> "there", "they're") or, when it has none, by a word one phone
    substitution away with the same number of phones ("river" -> "liver"). The choice among
    candidates comes from `question_rng(seed, question, "phonetic")`, so it is deterministic. Case and
    punctuation are kept; words not in the dictionary, numbers and abbreviations are left alone.

    Registered as `phonetic` by the plugin manager when the `srcframework-phonetic` distribution
    is installed (not on import of this module).

    # Parameters

    word_probability : `float`, optional (default = `0.3`)
        Probability that a word with a confusion is replaced; 0 leaves questions unchanged.
    dictionary_path : `str`, optional
        A CMU-format pronouncing dictionary (`word PH1 PH2 ...`, alternates as `word(2)`). By
        default, `cmudict-en-us.dict` of the installed pocketsphinx.
    """

    def __init__(self, word_probability: float = 0.3, dictionary_path: Optional[str] = None) -> None:
        if not 0.0 <= word_probability <= 1.0:
            raise ValueError(f"word_probability must be in [0, 1], got {word_probability}")
        self.word_probability = word_probability
        self.dictionary_path = dictionary_path

    @property
    def index(self) -> PhoneIndex:
        """The pronunciation index, read on first use and shared by every instance."""
        return load_index(self.dictionary_path or default_dictionary_path())

    def noise(self, questions: List[str], seed: int = 0, ids: List[str] = None) -> List[str]:
        if self.word_probability == 0.0:
            return list(questions)
        return [self.noise_one(question, seed) for question in questions]

    def noise_one(self, question: str, seed: int = 0) -> str:
        index = self.index
        rng = question_rng(seed, question, "phonetic")

        def replace(match: "re.Match") -> str:
            original = match.group(0)
            candidates = index.confusions(original.lower().replace("’", "'"))
            if not candidates or rng.random() >= self.word_probability:
                return original
            return match_case(rng.choice(candidates), original)

        return WORD.sub(replace, question)

    def describe(self) -> dict:
        return {
            "type": "phonetic",
            "word_probability": self.word_probability,
            "dictionary_path": self.dictionary_path or DICTIONARY_NAME + " (pocketsphinx)",
        }
