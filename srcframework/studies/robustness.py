"""What robust training bought: each model that names a `twin` (the same model trained on clean
questions) against that twin, over the noisy sets both were run on.

- `mean_drop`: the model's F1 drop from its clean set, averaged over those noisy sets;
- `twin_mean_drop`: the same for the twin;
- `drop_reduction`: 100 x (twin_mean_drop - mean_drop) / twin_mean_drop, the relative reduction of
  the mean drop (NoiseQA reports its mitigation this way); None when the twin does not drop;
- `clean_f1_change`: the model's clean F1 minus the twin's.
"""
from typing import Dict, List, Optional, Tuple


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
