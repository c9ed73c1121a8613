"""A robust model against its twin over any group of noisy sets, from a study's `results.json`
alone: each set's drop (clean F1 minus the set's F1) of each seed, as the pairs record it.

A study declares such groups (`set_groups`), or a re-analysis names them after the fact
(`reanalyse.py`); the generator split of `robustness.py` is computed at the study's run, from the
per-question scores. The figures here are the same figures where every set of the group and its
clean reference hold the same questions (the pairs' `questions`): the mean drop over a group is
then the mean of its sets' drops. Where they do not, the group is refused, since its estimate
would mix questions.

For a group, of a model and its twin:

- `mean_drop`, `twin_mean_drop`, `drop_difference` (the twin's minus the model's),
  `drop_reduction` (`100 x drop_difference / twin_mean_drop`);
- `seeds`, `twin_seeds`: each seed's mean drop over the group (a model with several archives);
- `by_set`: each set's drop difference, its share of the group's summed differences, and each
  seed pair's difference (`add_by_set` adds it to groups computed elsewhere).
"""
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from srcframework.common.errors import InputError


def _pairs(results: dict) -> Dict[Tuple[str, str], dict]:
    return {(pair["model"], pair["set"]): pair for pair in results["pairs"]}


def _seed_drops(pair: dict) -> np.ndarray:
    """One drop per seed (the pair's own drop for a model with one archive)."""
    seeds = pair.get("seeds") or []
    if seeds:
        return np.array([seed["f1_drop"] for seed in seeds], dtype=np.float64)
    return np.array([pair["f1_drop"]], dtype=np.float64)


def _pair(pairs: Dict[Tuple[str, str], dict], model: str, test_set: str) -> dict:
    pair = pairs.get((model, test_set))
    if pair is None:
        raise InputError(f"the results hold no pair of model {model!r} on test set {test_set!r}")
    if not pair.get("reference") or pair.get("f1_drop") is None:
        raise InputError(f"test set {test_set!r} of model {model!r} has no drop (no clean reference set)")
    return pair


def group_figures(results: dict, model: str, twin: str, sets: Sequence[str]) -> dict:
    """
    The model against its twin over `sets`, from the pairs' per-seed drops.

    # Parameters

    results : `dict`
        A study's results (`pairs` with `f1_drop`, `questions`, `reference` and, for a model with
        several archives, `seeds`).
    model : `str`
    twin : `str`
    sets : `Sequence[str]`
        Noisy sets both ran on.
    """
    if not sets:
        raise InputError("a group of noisy sets needs at least one set")
    pairs = _pairs(results)
    found = {s: (_pair(pairs, model, s), _pair(pairs, twin, s)) for s in sets}
    counts = set()
    for mine, theirs in found.values():
        for pair in (mine, theirs, pairs.get((model, mine["reference"])), pairs.get((twin, theirs["reference"]))):
            counts.add(pair["questions"] if pair else None)
    if len(counts) != 1 or None in counts:
        raise InputError(f"the sets {', '.join(sets)} and their clean sets do not all hold the same questions "
                         f"({sorted(c for c in counts if c is not None)}); a group's drop from the pairs would mix "
                         "questions: rerun the study with the group declared (set_groups)")
    mine = np.stack([_seed_drops(found[s][0]) for s in sets])
    theirs = np.stack([_seed_drops(found[s][1]) for s in sets])
    model_drop, twin_drop = mine.mean(axis=0), theirs.mean(axis=0)
    difference = float(twin_drop.mean() - model_drop.mean())
    paired = mine.shape[1] == theirs.shape[1]
    by_set = []
    differences = theirs.mean(axis=1) - mine.mean(axis=1)
    total = float(differences.sum())
    for index, test_set in enumerate(sets):
        entry = {
            "set": test_set,
            "mean_drop": float(mine[index].mean()),
            "twin_mean_drop": float(theirs[index].mean()),
            "difference": float(differences[index]),
            "share": float(differences[index] / total) if total != 0 else None,
        }
        if paired and mine.shape[1] > 1:
            entry["seed_differences"] = [float(x) for x in theirs[index] - mine[index]]
        by_set.append(entry)
    twin_mean = float(twin_drop.mean())
    group = {
        "noisy_sets": list(sets),
        "questions": counts.pop(),
        "mean_drop": float(model_drop.mean()),
        "twin_mean_drop": twin_mean,
        "drop_difference": difference,
        "drop_reduction": 100.0 * difference / twin_mean if twin_mean > 0 else None,
        "by_set": by_set,
    }
    if model_drop.size > 1:
        group["seeds"] = [{"seed": i, "mean_drop": float(x)} for i, x in enumerate(model_drop)]
    if twin_drop.size > 1:
        group["twin_seeds"] = [{"seed": i, "mean_drop": float(x)} for i, x in enumerate(twin_drop)]
    return group


def declared_groups(results: dict, groups: Sequence[dict]) -> None:
    """
    Add `set_groups` to each robustness row of `results`: the row's model against its twin over
    each of `groups` (`{"name", "sets", "label", "declared"}`) that both ran on, in order. A row
    keeps the groups it already holds (computed at the study's run, with their intervals) and
    gains the ones it lacks.
    """
    pairs = _pairs(results)
    for row in results.get("robustness", []):
        held = {group["group"]: group for group in row.get("set_groups") or []}
        built: List[dict] = []
        for spec in groups:
            if spec["name"] in held:
                built.append(held[spec["name"]])
                continue
            if not all(_has_drop(pairs, name, s) for name in (row["model"], row["twin"]) for s in spec["sets"]):
                continue
            figures = group_figures(results, row["model"], row["twin"], spec["sets"])
            built.append({"group": spec["name"], "label": spec.get("label") or spec["name"],
                          "declared": spec.get("declared"), **figures})
        if built:
            row["set_groups"] = built


def add_by_set(results: dict) -> None:
    """Add `by_set` to every group of every robustness row that lacks it, where the group's sets
    hold the same questions (a group over other questions keeps its figure without the split)."""
    for row in results.get("robustness", []):
        for group in (row.get("groups") or []) + (row.get("set_groups") or []):
            if "by_set" in group or not group.get("noisy_sets") or group.get("drop_difference") is None:
                continue
            try:
                group["by_set"] = group_figures(results, row["model"], row["twin"], group["noisy_sets"])["by_set"]
            except InputError:
                continue


def _has_drop(pairs: Dict[Tuple[str, str], dict], model: str, test_set: str) -> bool:
    pair = pairs.get((model, test_set))
    return bool(pair and pair.get("reference") and pair.get("f1_drop") is not None)


def spec_of(group: object) -> Optional[dict]:
    """A study's `SetGroupSpec` as the plain dict `declared_groups` takes."""
    return {"name": group.name, "sets": list(group.sets), "label": group.label, "declared": group.declared}
