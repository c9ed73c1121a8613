"""Which differences of a study are real: bootstrap intervals of each pair's EM and F1, and paired
tests of one pair against another over the questions both scored (paired by question id).

- each pair's drop: its model on the clean reference set against the same model on this set;
- each set's models against each other.

A test gives the difference (first minus second), its paired bootstrap interval and the p-value
of a paired approximate randomisation test (`metrics/statistics.py`), for EM and for F1.
"""
from itertools import combinations
from typing import Dict, List, Tuple

from srcframework.metrics.statistics import Resampler
from srcframework.studies.question_scores import PairScores, shared_ids

SIGNIFICANCE_LEVEL = 0.05
TEST_NAME = "paired approximate randomisation"


def pair_intervals(scores: PairScores, resampler: Resampler) -> dict:
    """`{"em_low", "em_high", "f1_low", "f1_high"}`: the bootstrap intervals of the pair's EM and F1."""
    em_low, em_high = resampler.interval(scores.em)
    f1_low, f1_high = resampler.interval(scores.f1)
    return {"em_low": em_low, "em_high": em_high, "f1_low": f1_low, "f1_high": f1_high}


def paired_comparison(first: PairScores, second: PairScores, resampler: Resampler) -> dict:
    """`{"questions", "em": test, "f1": test}` of `first` minus `second` over their shared ids;
    a test is `{"difference", "low", "high", "p", "significant"}`. No shared id: questions 0 and
    no tests."""
    ids = shared_ids(first, second)
    if not ids:
        return {"questions": 0, "em": None, "f1": None}
    here, there = first.positions(ids), second.positions(ids)
    result: dict = {"questions": len(ids)}
    for metric in ("em", "f1"):
        test = resampler.test(getattr(first, metric)[here], getattr(second, metric)[there])
        result[metric] = dict(test, significant=test["p"] < SIGNIFICANCE_LEVEL)
    return result


def model_comparisons(
    scores: Dict[Tuple[str, str], PairScores], models: List[str], sets: List[str], resampler: Resampler
) -> List[dict]:
    """For each set, every two models that ran on it (in the study's model order): the first
    model against the second."""
    comparisons = []
    for test_set in sets:
        present = [model for model in models if (model, test_set) in scores]
        for first, second in combinations(present, 2):
            comparison = paired_comparison(scores[(first, test_set)], scores[(second, test_set)], resampler)
            comparisons.append({"set": test_set, "first": first, "second": second, **comparison})
    return comparisons
