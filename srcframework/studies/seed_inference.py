"""Inference whose unit is the training run, added to a study's robustness rows beside the
paragraph-cluster bootstrap: for a model and its twin with the same number of seeds (seed k of
each paired, as the study lists their archives), from each seed's figures in `results.json`:

- each group (`groups`, and the declared `set_groups`): `seed_test`, the paired t-test over seeds
  of the drop difference (the twin's mean drop minus the model's, one per seed pair), with its
  95% interval (`metrics/seed_tests.py`); `p_holm` over the table's family (the generator groups
  of every row in one family, the declared groups in another);
- the clean set: `seed_test` of the clean-F1 change (the model's minus the twin's) and
  `seed_tost`, the two one-sided paired t-tests within the study's margin, each Holm-corrected
  over the rows;
- `statistics.seed_inference`: how.

A model with one seed, or a twin with another number of seeds, gets none of these: with one
training run per arm nothing can be said about another run. These intervals hold the test
questions fixed; the variance components (`robustness.py`, from the per-question scores) say how
much a new set of questions would add.
"""
from typing import Iterator, List, Optional, Tuple

from srcframework.metrics.seed_tests import CONFIDENCE, LEVEL, holm_adjusted, paired_seed_equivalence, paired_seed_test

DESCRIPTION = {
    "unit": "training run: seed k of a model paired with seed k of its twin",
    "test": "paired t-test over seed pairs (scipy.stats.ttest_rel), Student's t interval with seeds - 1 degrees "
            "of freedom; the test questions are held fixed",
    "equivalence": "two one-sided paired t-tests over seed pairs (statsmodels ttost_paired)",
    "correction": "Holm (statsmodels multipletests) over the table's seed-level tests",
    "confidence": CONFIDENCE,
}


def _per_seed(group: dict) -> Optional[Tuple[List[float], List[float]]]:
    """`(twin's, model's)` mean drop of each seed pair, or None without paired seeds."""
    mine = [seed["mean_drop"] for seed in group.get("seeds") or []]
    theirs = [seed["mean_drop"] for seed in group.get("twin_seeds") or []]
    if len(mine) < 2 or len(mine) != len(theirs) or None in mine or None in theirs:
        return None
    return theirs, mine


def _groups(row: dict, key: str) -> Iterator[dict]:
    yield from row.get(key) or []


def add_seed_inference(results: dict, level: float = LEVEL) -> bool:
    """Add the seed-level tests to every robustness row that has paired seeds; returns whether
    any row had them (and `statistics.seed_inference` was set)."""
    rows = results.get("robustness") or []
    made = False
    for key in ("groups", "set_groups"):
        family = []
        for row in rows:
            for group in _groups(row, key):
                pairs = _per_seed(group)
                if pairs is None:
                    group.pop("seed_test", None)
                    continue
                group["seed_test"] = paired_seed_test(*pairs, confidence=CONFIDENCE)
                family.append(group["seed_test"])
        for test, p in zip(family, holm_adjusted([test["p"] for test in family])):
            test["p_holm"] = p
        made = made or bool(family)
    cleans = []
    for row in rows:
        clean = row.get("clean") or {}
        mine = [seed["f1"] for seed in clean.get("seeds") or []]
        theirs = [seed["f1"] for seed in clean.get("twin_seeds") or []]
        if len(mine) >= 2 and len(mine) == len(theirs):
            clean["seed_test"] = paired_seed_test(mine, theirs, confidence=CONFIDENCE)
            clean["seed_tost"] = paired_seed_equivalence(mine, theirs, clean["margin"], level)
            cleans.append(clean)
    for key in ("seed_test", "seed_tost"):
        for clean, p in zip(cleans, holm_adjusted([clean[key]["p"] for clean in cleans])):
            clean[key]["p_holm"] = p
    made = made or bool(cleans)
    if made and "statistics" in results:
        results["statistics"]["seed_inference"] = dict(DESCRIPTION, significance_level=level)
    return made
