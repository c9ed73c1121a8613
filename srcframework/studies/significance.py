"""Which differences of a study are real: bootstrap intervals of each pair's EM and F1, and paired
tests of one pair against another over the questions both scored (paired by question id).

- each pair's drop: its model on the clean reference set against the same model on this set;
- each set's models against each other;
- named comparisons of one pair against another across sets (study key `comparisons`), over the
  question ids both pairs hold.

A test gives the difference (first minus second), its paired bootstrap interval and the p-value
of a paired approximate randomisation test (`metrics/statistics.py`), for EM and for F1. The
tests of one table form a family: `correct` adds each test's Holm-Bonferroni adjusted p
(`p_holm`), and a test is `significant` when that adjusted p is below the level.
"""
from itertools import combinations
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from srcframework.metrics.statistics import LEVEL, PERMUTATIONS, RANGE_TEST, Resampler, holm, range_permutation_test
from srcframework.studies.question_scores import PairScores, shared_ids

SIGNIFICANCE_LEVEL = LEVEL
TEST_NAME = "paired approximate randomisation"
CORRECTION = "Holm-Bonferroni"
Plan = Tuple[str, int]


def pair_intervals(scores: PairScores, resampler: Resampler) -> dict:
    """`{"em_low", "em_high", "f1_low", "f1_high"}`: the bootstrap intervals of the pair's EM and F1."""
    em_low, em_high = resampler.interval(scores.ids, scores.em_by_seed, scores.model)
    f1_low, f1_high = resampler.interval(scores.ids, scores.f1_by_seed, scores.model)
    return {"em_low": em_low, "em_high": em_high, "f1_low": f1_low, "f1_high": f1_high}


def question_groups(scores: PairScores, key: str = "country") -> List[Optional[str]]:
    """The `key` group (`country`, `speaker`, ...) of each question of a pair (in the order of its
    ids), None where the record has none: the grouping of the pair's `by_<key>`
    (`reports/accent.py`)."""
    found: List[Optional[str]] = []
    for qid in scores.ids:
        value = ((scores.records.get(qid) or {}).get("groups") or {}).get(key)
        found.append(None if value is None or str(value) == "" else str(value))
    return found


def f1_range_test(scores: PairScores, key: str = "country", rounds: int = PERMUTATIONS, seed: int = 0) -> Optional[dict]:
    """`{"p", "rounds", "test"}`: the permutation test of no difference between the pair's `key`
    groups (countries; with `key="speaker"`, voices) of its F1 range (the best group's F1 minus
    the worst's): each question's F1 (the mean over a model's seeds), the group labels shuffled
    over the questions (`metrics.statistics.range_permutation_test`). None under two groups.

    A bootstrap interval of a range of maxima and minima is biased upward (a resample's best group
    is often not the range's best), and can lie above the range itself; the permutation null has
    the same bias, so the test compares like with like."""
    groups = question_groups(scores, key)
    kept = [index for index, name in enumerate(groups) if name is not None]
    if len({groups[index] for index in kept}) < 2:
        return None
    values = np.asarray(scores.f1_by_seed, dtype=np.float64).mean(axis=0)[kept]
    found = range_permutation_test(values, [groups[index] for index in kept], rounds, seed)
    return {"p": found["p"], "rounds": found["rounds"], "test": RANGE_TEST}


def paired_comparison(first: PairScores, second: PairScores, resampler: Resampler, plan: Optional[Plan] = None) -> dict:
    """`{"questions", "em": test, "f1": test}` of `first` minus `second` over their shared ids;
    a test is `{"difference", "low", "high", "p"}` (`plan`: the `family_plan` of its family, by
    default a randomisation test with the resampler's rounds). No shared id: questions 0 and no
    tests."""
    ids = shared_ids(first, second)
    if not ids:
        return {"questions": 0, "em": None, "f1": None}
    method, rounds = plan or ("randomisation", resampler.permutations)
    here, there = first.positions(ids), second.positions(ids)
    result: dict = {"questions": len(ids)}
    for metric in ("em", "f1"):
        mine, theirs = getattr(first, f"{metric}_by_seed")[:, here], getattr(second, f"{metric}_by_seed")[:, there]
        test = resampler.test(ids, mine, theirs, first.model, second.model, method, rounds)
        test.pop("draws")
        result[metric] = test
    return result


def correct(tests: List[Optional[dict]], level: float = SIGNIFICANCE_LEVEL) -> None:
    """Add `p_holm` (Holm-Bonferroni over the family `tests`) and `significant` (`p_holm <
    level`) to each test; None stands for a test not made."""
    adjusted = holm([test["p"] if test else None for test in tests])
    for test, p in zip(tests, adjusted):
        if test:
            test.update(p_holm=p, significant=p < level)


def comparison_tests(comparisons: List[dict]) -> List[Optional[dict]]:
    """The EM and F1 tests of paired comparisons, as one family."""
    return [comparison[metric] for comparison in comparisons for metric in ("em", "f1")]


def model_comparisons(
    scores: Dict[Tuple[str, str], PairScores], models: List[str], sets: List[str], resampler: Resampler,
    plan: Optional[Plan] = None,
) -> List[dict]:
    """For each set, every two models that ran on it (in the study's model order): the first
    model against the second, Holm-corrected as one family."""
    comparisons = []
    for first, second, test_set in comparison_pairs(scores, models, sets):
        comparison = paired_comparison(scores[(first, test_set)], scores[(second, test_set)], resampler, plan)
        comparisons.append({"set": test_set, "first": first, "second": second, **comparison})
    correct(comparison_tests(comparisons))
    return comparisons


def comparison_pairs(scores: Dict[Tuple[str, str], PairScores], models: List[str], sets: List[str]) -> List[Tuple[str, str, str]]:
    """`(first, second, set)` of every model comparison, in table order."""
    found = []
    for test_set in sets:
        present = [model for model in models if (model, test_set) in scores]
        found += [(first, second, test_set) for first, second in combinations(present, 2)]
    return found


def cross_comparisons(
    comparisons: Sequence[Tuple[str, Tuple[str, str], Tuple[str, str]]], scores: Dict[Tuple[str, str], PairScores],
    resampler: Resampler, plan: Optional[Plan] = None,
) -> List[dict]:
    """`(label, (model, set), (model, set))` comparisons across sets: the first pair against the
    second over the question ids both hold (`questions`: how many), Holm-corrected as one family.
    Without shared ids an entry has `questions` 0 and no tests."""
    found = []
    for label, first, second in comparisons:
        comparison = paired_comparison(scores[first], scores[second], resampler, plan)
        found.append({"label": label, "first": {"model": first[0], "set": first[1]},
                      "second": {"model": second[0], "set": second[1]}, **comparison})
    correct(comparison_tests(found))
    return found
