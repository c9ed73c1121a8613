"""Error analysis of a study pair from its per-question scores:

- flips against the pair's clean reference, by question id: questions right on the clean set and
  wrong on the noisy one, and the reverse ("right" = exact match 1; of the model's first archive
  where it has several);
- EM and F1, with bootstrap intervals, by question type and by question length (both of the
  clean question, `question_types.py`) and, for noisy text sets that carry the clean question
  (`original_question`), by the question's WER bucket;
- example flips: clean question, noisy question, gold answers and both predictions.
"""
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import jiwer
import numpy as np

from srcframework.metrics.statistics import Resampler
from srcframework.metrics.text_noise import normalize_for_wer
from srcframework.studies.question_scores import PairScores, shared_ids
from srcframework.studies.question_types import (
    LENGTH_BUCKETS,
    QUESTION_TYPES,
    WER_BUCKETS,
    length_bucket,
    question_type,
    wer_bucket,
)


def clean_question(record: dict) -> str:
    """The question before any noise: `original_question` where the record has one."""
    original = record.get("original_question")
    return original if isinstance(original, str) else str(record.get("question") or "")


WerCache = Dict[Tuple[str, str], Optional[float]]


def sentence_wers(pairs: List[Tuple[str, str]], cache: Optional[WerCache] = None) -> List[Optional[float]]:
    """The WER (%) of each `(clean, noisy)` question pair, as `text_noise.wer` of that pair
    alone (the same normalisation, word edit distance over the clean question's words), in one
    jiwer call; None where the clean question is empty after normalisation. `cache` keeps the
    values across calls (the models of a study share each set's questions)."""
    cache = {} if cache is None else cache
    todo = [pair for pair in dict.fromkeys(pairs) if pair not in cache]
    normal: Dict[str, str] = {}
    for text in {text for pair in todo for text in pair}:
        normal[text] = normalize_for_wer(text)
    measurable = [pair for pair in todo if normal[pair[0]]]
    cache.update({pair: None for pair in todo if not normal[pair[0]]})
    if measurable:
        output = jiwer.process_words([normal[o] for o, _ in measurable], [normal[q] for _, q in measurable])
        for pair, chunks, words in zip(measurable, output.alignments, output.references):
            errors = sum(
                (c.hyp_end_idx - c.hyp_start_idx) if c.type == "insert" else (c.ref_end_idx - c.ref_start_idx)
                for c in chunks
                if c.type != "equal"
            )
            cache[pair] = 100.0 * errors / len(words)
    return [cache[pair] for pair in pairs]


def question_wers(scores: PairScores, cache: Optional[WerCache] = None) -> Optional[Dict[str, float]]:
    """Each question's WER (%) against its clean question, where the records carry one; None
    where none does. A question whose clean text is empty after normalisation has none."""
    ids, pairs = [], []
    for qid in scores.ids:
        record = scores.records[qid]
        question, original = record.get("question"), record.get("original_question")
        if isinstance(question, str) and isinstance(original, str):
            ids.append(qid)
            pairs.append((original, question))
    wers = {qid: value for qid, value in zip(ids, sentence_wers(pairs, cache)) if value is not None}
    return wers or None


def _grouped(scores: PairScores, labels: Sequence[Optional[str]], order: Sequence[str], resampler: Resampler) -> dict:
    """`{label: {count, em, f1, f1_low, f1_high}}` in `order`, over the questions with that label
    (the interval resamples their contexts, and the model's seeds)."""
    labels = np.array([label or "" for label in labels], dtype=object)
    ids = np.array(scores.ids, dtype=object)
    groups = {}
    for label in order:
        mask = labels == label
        if not mask.any():
            continue
        f1 = scores.f1[mask]
        low, high = resampler.interval(list(ids[mask]), scores.f1_by_seed[:, mask], scores.model)
        groups[label] = {"count": int(mask.sum()), "em": float(scores.em[mask].mean()), "f1": float(f1.mean()),
                         "f1_low": low, "f1_high": high}
    return groups


def _by_question(scores: PairScores, label: Callable[[dict], str]) -> List[str]:
    return [label(scores.records[qid]) for qid in scores.ids]


def breakdowns(scores: PairScores, resampler: Resampler, with_wer: bool, wer_cache: Optional[WerCache] = None) -> dict:
    """
    The pair's scores by question type, length and (with `with_wer`, where the records carry
    their clean questions) WER bucket.

    # Returns

    `{"by_question_type": {...}, "by_length": {...}, "by_wer_bucket": {...}}`, each
    `{label: {count, em, f1, f1_low, f1_high}}`; `by_wer_bucket` is empty without WERs.
    """
    types = _by_question(scores, lambda record: question_type(clean_question(record)))
    lengths = _by_question(scores, lambda record: length_bucket(clean_question(record)))
    result = {
        "by_question_type": _grouped(scores, types, QUESTION_TYPES, resampler),
        "by_length": _grouped(scores, lengths, [label for label, _ in LENGTH_BUCKETS], resampler),
        "by_wer_bucket": {},
    }
    wers = question_wers(scores, wer_cache) if with_wer else None
    if wers:
        buckets = [wer_bucket(wers[qid]) if qid in wers else None for qid in scores.ids]
        result["by_wer_bucket"] = _grouped(scores, buckets, [label for label, _ in WER_BUCKETS], resampler)
    return result


def _flip_ids(clean: PairScores, noisy: PairScores) -> Dict[str, List[str]]:
    ids = shared_ids(clean, noisy)
    right_clean = clean.em_by_seed[0][clean.positions(ids)] > 0
    right_noisy = noisy.em_by_seed[0][noisy.positions(ids)] > 0
    return {
        "right_to_wrong": [qid for qid, c, n in zip(ids, right_clean, right_noisy) if c and not n],
        "wrong_to_right": [qid for qid, c, n in zip(ids, right_clean, right_noisy) if n and not c],
        "questions": ids,
    }


def flips(clean: PairScores, noisy: PairScores) -> dict:
    """`{"questions", "right_to_wrong", "wrong_to_right"}`: counts over the questions both pairs
    scored, "right" meaning exact match 1."""
    found = _flip_ids(clean, noisy)
    return {key: len(value) for key, value in found.items()}


def flip_examples(clean: PairScores, noisy: PairScores, count: int) -> Dict[str, List[dict]]:
    """Up to `count` flips of each direction (in the order of their ids), each with its clean
    and noisy question, gold answers and both predictions."""
    found = _flip_ids(clean, noisy)

    def example(qid: str) -> dict:
        before, after = clean.records[qid], noisy.records[qid]
        return {
            "id": qid,
            "clean_question": clean_question(before),
            "noisy_question": after.get("question"),
            "answers": list(before["answers"]),
            "clean_prediction": before["prediction"],
            "noisy_prediction": after["prediction"],
        }

    return {key: [example(qid) for qid in found[key][:count]] for key in ("right_to_wrong", "wrong_to_right")}
