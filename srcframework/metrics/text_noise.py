"""How far noised questions are from the clean ones: corpus CER, WER and BLEU, as percentages (0-100).

`wer` and `cer` compare texts after `normalize_for_wer`: lowercase, strip punctuation (jiwer's
`RemovePunctuation`, which deletes every Unicode punctuation character without leaving a space, so
`Tesla's` becomes `teslas` and `X.25` becomes `x25`), collapse every run of whitespace (tabs and
newlines too) to one space and strip the ends. Both are corpus-level (jiwer): edits summed over all
pairs divided by the reference words (WER) or characters, spaces included (CER). Case,
punctuation and spacing therefore cost nothing; an ASR transcript without `?` or capitals is not
penalised.

`bleu` is sacrebleu's corpus BLEU on the texts as given, with its default 13a tokenisation and
`lowercase=True`.

Every function takes the references (clean questions) first, then the hypotheses (noised ones).
"""
import functools
from typing import List, Tuple

import jiwer
import sacrebleu


@functools.lru_cache(maxsize=None)
def normalizer() -> jiwer.Compose:
    """jiwer's transform for `normalize_for_wer`, made on first use: `RemovePunctuation` walks every
    Unicode code point when it is made (about 0.2 s), which every `allennlp` command would otherwise
    pay at start-up, since the plugin imports this module."""
    return jiwer.Compose(
        [jiwer.ToLowerCase(), jiwer.RemovePunctuation(), jiwer.SubstituteRegexes({r"\s+": " "}), jiwer.Strip()]
    )


def normalize_for_wer(text: str) -> str:
    """Lowercased, punctuation removed, whitespace collapsed and stripped."""
    return normalizer()(text)


def _pairs(refs: List[str], hyps: List[str]):
    if isinstance(refs, str) or isinstance(hyps, str):
        raise TypeError("expected lists of texts (references, hypotheses), got a single string")
    refs, hyps = list(refs), list(hyps)
    if len(refs) != len(hyps):
        raise ValueError(f"{len(refs)} references but {len(hyps)} hypotheses")
    if not refs:
        raise ValueError("no texts to compare")
    for index, text in enumerate(refs + hyps):
        if not isinstance(text, str):
            side = "reference" if index < len(refs) else "hypothesis"
            raise TypeError(f"{side} {index % len(refs)} is a {type(text).__name__}, not a string")
    refs, hyps = [normalize_for_wer(t) for t in refs], [normalize_for_wer(t) for t in hyps]
    if not any(refs):
        raise ValueError("every reference is empty after normalisation")
    return refs, hyps


def wer(refs: List[str], hyps: List[str]) -> float:
    """Corpus word error rate (%) after `normalize_for_wer`."""
    refs, hyps = _pairs(refs, hyps)
    return 100.0 * jiwer.wer(refs, hyps)


def cer(refs: List[str], hyps: List[str]) -> float:
    """Corpus character error rate (%) after `normalize_for_wer`."""
    refs, hyps = _pairs(refs, hyps)
    return 100.0 * jiwer.cer(refs, hyps)


def bleu(refs: List[str], hyps: List[str]) -> float:
    """sacrebleu corpus BLEU (0-100) of the hypotheses against the references, lowercased."""
    _pairs(refs, hyps)
    return sacrebleu.corpus_bleu(list(hyps), [list(refs)], lowercase=True).score


def question_noise_statistics(refs: List[str], hyps: List[str]) -> dict:
    """How far noised questions `hyps` are from their clean originals `refs`: the count, how many
    differ, and CER, WER and BLEU (0-100) as above."""
    return {
        "questions": len(refs),
        "changed": sum(r != h for r, h in zip(refs, hyps)),
        "cer": cer(refs, hyps),
        "wer": wer(refs, hyps),
        "bleu": bleu(refs, hyps),
    }


def word_and_character_errors(references: List[str], hypotheses: List[str]) -> Tuple[int, int, int, int]:
    """`(word errors, reference words, character errors, reference characters)` of the pairs whose
    reference is not empty (jiwer: substitutions + deletions + insertions)."""
    pairs = [(r, h) for r, h in zip(references, hypotheses) if r]
    if not pairs:
        return 0, 0, 0, 0
    refs, hyps = [r for r, _ in pairs], [h for _, h in pairs]
    words = jiwer.process_words(refs, hyps)
    chars = jiwer.process_characters(refs, hyps)
    word_errors = words.substitutions + words.deletions + words.insertions
    char_errors = chars.substitutions + chars.deletions + chars.insertions
    return (
        word_errors,
        words.substitutions + words.deletions + words.hits,
        char_errors,
        chars.substitutions + chars.deletions + chars.hits,
    )
