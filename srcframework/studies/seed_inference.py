"""Inference whose unit is the training run, added to a study's robustness rows beside the
paragraph-cluster bootstrap: for a model and its twin, each archive of one paired with the
twin's archive of the same training seed (the `random_seed` of its config, the model's
`random_seeds` in `results.json`), from each seed's figures in `results.json`:

- each group (`groups`, and the declared `set_groups`): `seed_test`, the paired t-test over seeds
  of the drop difference (the twin's mean drop minus the model's, one per seed pair), with its
  95% interval (`metrics/seed_tests.py`); `p_holm` over the table's family (the generator groups
  of every row in one family, the declared groups in another);
- the clean set: `seed_test` of the clean-F1 change (the model's minus the twin's) and
  `seed_tost`, the two one-sided paired t-tests within the study's margin, each Holm-corrected
  over the rows;
- `statistics.seed_inference`: how.

A model with one seed gets none of these: with one training run per arm nothing can be said
about another run. Two arms whose archives' seeds are not the same set of seeds (another number,
a seed twice, a seed one arm lacks) are refused with an `InputError`. Results that record no
`random_seed` for either arm (written before the studies kept them) pair by the order the study
lists the archives, and say so (`paired_by`). These intervals hold the test
questions fixed; the variance components (`robustness.py`, from the per-question scores) say how
much a new set of questions would add.
"""
from typing import Dict, Iterator, List, Optional, Tuple

from srcframework.common.errors import InputError
from srcframework.metrics.seed_tests import CONFIDENCE, LEVEL, holm_adjusted, paired_seed_equivalence, paired_seed_test

DESCRIPTION = {
    "unit": "training run: seed k of a model paired with seed k of its twin",
    "test": "paired t-test over seed pairs (scipy.stats.ttest_rel), Student's t interval with seeds - 1 degrees "
            "of freedom; the test questions are held fixed",
    "equivalence": "two one-sided paired t-tests over seed pairs (statsmodels ttost_paired)",
    "correction": "Holm (statsmodels multipletests) over the table's seed-level tests",
    "confidence": CONFIDENCE,
}


BY_SEED = "random_seed: each archive paired with the twin's archive of the same training seed"
BY_POSITION = "position: the results record no random_seed, so archive k of the model with archive k of its twin"


def random_seeds(results: dict) -> Dict[str, List[Optional[int]]]:
    """`{model: the random_seed of each of its archives, in the study's order}` (None where unknown)."""
    found = {}
    for model in results.get("models") or []:
        count = len(model.get("archives") or [model.get("archive")])
        seeds = list(model.get("random_seeds") or [])
        found[model["name"]] = (seeds + [None] * count)[:count]
    return found


def seed_order(row: dict, seeds: Dict[str, List[Optional[int]]]) -> Tuple[Optional[List[Tuple[int, int]]], str]:
    """`([(model's archive index, twin's archive index) of each seed pair], how)`: paired by
    `random_seed` (sorted by seed) where both arms record every archive's, else by position when
    neither records any; None with under two seeds a side. An InputError where the arms' seeds
    differ, repeat, or only one arm records them."""
    mine, theirs = seeds.get(row["model"]) or [], seeds.get(row["twin"]) or []
    if len(mine) < 2 or len(theirs) < 2:
        return None, ""
    where = f"{row['model']} against {row['twin']}"
    known = [None not in side for side in (mine, theirs)]
    if not any(known) and all(seed is None for seed in mine + theirs):
        if len(mine) != len(theirs):
            raise InputError(f"{where}: {len(mine)} archives against {len(theirs)}, and no random_seed to pair them by")
        return [(k, k) for k in range(len(mine))], BY_POSITION
    if not all(known):
        raise InputError(f"{where}: random_seeds {mine} against {theirs}: every archive of both needs one to pair them")
    for name, side in ((row["model"], mine), (row["twin"], theirs)):
        if len(set(side)) != len(side):
            raise InputError(f"{where}: {name} has the random_seed {sorted(s for s in side if side.count(s) > 1)[0]} twice")
    if sorted(mine) != sorted(theirs):
        raise InputError(f"{where}: the seeds differ ({sorted(mine)} against {sorted(theirs)}); each seed needs its pair")
    return [(mine.index(seed), theirs.index(seed)) for seed in sorted(mine)], BY_SEED


def _paired(mine: list, theirs: list, order: List[Tuple[int, int]], field: str) -> Optional[Tuple[List[float], List[float]]]:
    """`(model's, twin's)` `field` of each seed pair in `order`, or None where a figure is missing."""
    if len(mine) <= max(k for k, _ in order) or len(theirs) <= max(k for _, k in order):
        return None
    first = [mine[k][field] for k, _ in order]
    second = [theirs[k][field] for _, k in order]
    return None if None in first or None in second else (first, second)


def _per_seed(group: dict, order: List[Tuple[int, int]]) -> Optional[Tuple[List[float], List[float]]]:
    """`(twin's, model's)` mean drop of each seed pair, or None without paired seeds."""
    found = _paired(group.get("seeds") or [], group.get("twin_seeds") or [], order, "mean_drop")
    return None if found is None else (found[1], found[0])


def _groups(row: dict, key: str) -> Iterator[dict]:
    yield from row.get(key) or []


def add_seed_inference(results: dict, level: float = LEVEL) -> bool:
    """Add the seed-level tests to every robustness row that has paired seeds; returns whether
    any row had them (and `statistics.seed_inference` was set)."""
    rows = results.get("robustness") or []
    seeds = random_seeds(results)
    orders = {}
    for row in rows:
        # an arm that results["models"] does not list: as many unknown seeds as the row has figures
        counted = dict(seeds)
        clean = row.get("clean") or {}
        first = next(iter(_groups(row, "groups")), clean)
        for name, key in ((row["model"], "seeds"), (row["twin"], "twin_seeds")):
            if name not in counted:
                counted[name] = [None] * len(first.get(key) or clean.get(key) or [])
        orders[row["model"]] = seed_order(row, counted)
    made = False
    for key in ("groups", "set_groups"):
        family = []
        for row in rows:
            order, how = orders[row["model"]]
            for group in _groups(row, key):
                pairs = _per_seed(group, order) if order else None
                if pairs is None:
                    group.pop("seed_test", None)
                    continue
                group["seed_test"] = dict(paired_seed_test(*pairs, confidence=CONFIDENCE), paired_by=how)
                family.append(group["seed_test"])
        for test, p in zip(family, holm_adjusted([test["p"] for test in family])):
            test["p_holm"] = p
        made = made or bool(family)
    cleans = []
    for row in rows:
        clean = row.get("clean") or {}
        order, how = orders[row["model"]]
        found = _paired(clean.get("seeds") or [], clean.get("twin_seeds") or [], order, "f1") if order else None
        if found is not None:
            mine, theirs = found
            clean["seed_test"] = dict(paired_seed_test(mine, theirs, confidence=CONFIDENCE), paired_by=how)
            clean["seed_tost"] = paired_seed_equivalence(mine, theirs, clean["margin"], level)
            cleans.append(clean)
    for key in ("seed_test", "seed_tost"):
        for clean, p in zip(cleans, holm_adjusted([clean[key]["p"] for clean in cleans])):
            clean[key]["p_holm"] = p
    made = made or bool(cleans)
    if made and "statistics" in results:
        results["statistics"]["seed_inference"] = dict(DESCRIPTION, significance_level=level)
    return made
