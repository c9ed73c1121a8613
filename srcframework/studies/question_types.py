"""The groups that a study's error analysis breaks F1 down by, each taken from the clean question:

- `question_type`: the question's first wh-word: what, who (whom, whose), when, where, why, which,
  how many/much (how followed by many or much), other how, or other (no wh-word);
- `length_bucket`: the clean question's length in words (`1-5`, `6-8`, `9-11`, `12-15`, `16+`);
- `wer_bucket`: the noisy question's WER (%) against the clean one (`0`, `0-20`, `20-40`,
  `40-60`, `60+`; each bucket but `0` excludes its lower bound).
"""
import re
from typing import List, Tuple

QUESTION_TYPES = ("what", "who", "when", "where", "why", "which", "how many/much", "other how", "other")
LENGTH_BUCKETS: List[Tuple[str, int]] = [("1-5", 5), ("6-8", 8), ("9-11", 11), ("12-15", 15), ("16+", 10**9)]
WER_BUCKETS: List[Tuple[str, float]] = [("0", 0.0), ("0-20", 20.0), ("20-40", 40.0), ("40-60", 60.0), ("60+", float("inf"))]

_WORD = re.compile(r"[a-z0-9]+")
_WH = {"what": "what", "who": "who", "whom": "who", "whose": "who", "when": "when", "where": "where", "why": "why",
       "which": "which"}


def _words(question: str) -> List[str]:
    return _WORD.findall(question.lower())


def question_type(question: str) -> str:
    """The type of a (clean) question, one of `QUESTION_TYPES`, from its first wh-word, so that
    "In what year ..." is a what-question and "The Panthers beat which team?" a which-question."""
    words = _words(question)
    for index, word in enumerate(words):
        if word in _WH:
            return _WH[word]
        if word == "how":
            following = words[index + 1] if index + 1 < len(words) else ""
            return "how many/much" if following in ("many", "much") else "other how"
    return "other"


def length_bucket(question: str) -> str:
    """The bucket of the question's length in whitespace-separated words."""
    length = len(question.split())
    return next(label for label, most in LENGTH_BUCKETS if length <= most)


def wer_bucket(wer: float) -> str:
    """The bucket of a question's WER (%)."""
    return next(label for label, most in WER_BUCKETS if wer <= most)
