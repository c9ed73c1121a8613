"""What robust training bought: each model that names a `twin` (the same model trained on clean
questions) against that twin, over the noisy sets both were run on.

- `mean_drop`: the model's F1 drop from its clean set, averaged over those noisy sets;
- `twin_mean_drop`: the same for the twin;
- `drop_reduction`: 100 x (twin_mean_drop - mean_drop) / twin_mean_drop, the relative reduction of
  the mean drop (NoiseQA reports its mitigation this way); None when the twin does not drop;
- `clean_f1_change`: the model's clean F1 minus the twin's.

`reduction_interval` adds the drop reduction's bootstrap interval from the per-question scores.
"""
from typing import Dict, List, Optional, Tuple

import numpy as np

from srcframework.metrics.statistics import Resampler, percentile_interval
from srcframework.studies.question_scores import PairScores


def robustness(results: dict) -> List[dict]:
    """One row per model with a twin, in model order; [] when no model names one."""
    pairs: Dict[Tuple[str, str], dict] = {(p["model"], p["set"]): p for p in results["pairs"]}
    rows = []
    for model in results["models"]:
        twin = model.get("twin")
        if not twin:
            continue
        noisy = [
            p["set"] for p in results["pairs"]
            if p["model"] == model["name"] and p.get("f1_drop") is not None
            and (pairs.get((twin, p["set"])) or {}).get("f1_drop") is not None
        ]
        if not noisy:
            continue
        mean_drop = sum(pairs[(model["name"], s)]["f1_drop"] for s in noisy) / len(noisy)
        twin_mean_drop = sum(pairs[(twin, s)]["f1_drop"] for s in noisy) / len(noisy)
        clean_sets = {pairs[(model["name"], s)]["reference"] for s in noisy}
        clean_change: Optional[float] = None
        if len(clean_sets) == 1:
            clean = clean_sets.pop()
            if (twin, clean) in pairs:
                clean_change = pairs[(model["name"], clean)]["f1"] - pairs[(twin, clean)]["f1"]
        rows.append({
            "model": model["name"],
            "twin": twin,
            "noisy_sets": noisy,
            "mean_drop": mean_drop,
            "twin_mean_drop": twin_mean_drop,
            "drop_reduction": 100.0 * (twin_mean_drop - mean_drop) / twin_mean_drop if twin_mean_drop > 0 else None,
            "clean_f1_change": clean_change,
        })
    return rows


def reduction_interval(results: dict, row: dict, scores: Dict[Tuple[str, str], PairScores], resampler: Resampler) -> dict:
    """`{"drop_reduction_low", "drop_reduction_high"}`: the percentile bootstrap interval of the
    row's `drop_reduction`. Each resample draws the questions that all the row's pairs scored (the
    model and the twin, on each noisy set and its clean set) once, for all of them together, so the
    interval carries the pairing. A resample in which the twin's mean drop is not positive leaves
    no reduction to claim and counts as minus infinity; both ends are None when so many do that the
    lower end would be unbounded, or when the pairs share no question."""
    none = {"drop_reduction_low": None, "drop_reduction_high": None}
    references = {p["set"]: p["reference"] for p in results["pairs"] if p["model"] == row["model"]}
    keys = {(name, s) for name in (row["model"], row["twin"]) for n in row["noisy_sets"] for s in (n, references[n])}
    if any(key not in scores for key in keys):
        return none
    ids = sorted(set.intersection(*(set(scores[key].ids) for key in keys)))
    if not ids:
        return none
    draws = resampler.indices(len(ids))
    means = {key: scores[key].f1[scores[key].positions(ids)][draws].mean(axis=1) for key in keys}

    def mean_drop(name: str) -> np.ndarray:
        return np.mean([means[(name, references[n])] - means[(name, n)] for n in row["noisy_sets"]], axis=0)

    model_drop, twin_drop = mean_drop(row["model"]), mean_drop(row["twin"])
    defined = twin_drop > 0
    alpha = (1.0 - resampler.confidence) / 2.0
    if np.count_nonzero(~defined) > np.floor(alpha * (len(twin_drop) - 1)):
        return none
    reduction = 100.0 * (twin_drop[defined] - model_drop[defined]) / twin_drop[defined]
    # below the lower quantile's position, so any value under the smallest defined one gives the same ends
    ratios = np.concatenate([np.full(np.count_nonzero(~defined), reduction.min()), reduction])
    low, high = percentile_interval(ratios, resampler.confidence)
    return {"drop_reduction_low": low, "drop_reduction_high": high}
