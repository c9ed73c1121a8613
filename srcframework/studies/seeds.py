"""A model with several archives (one per training seed) runs each of them on every set: its
pair's figures are the mean over seeds, and the figures of each seed are kept beside them."""
from typing import Dict, List, Optional

from srcframework.reports.accent import f1_range

SCORE_KEYS = ("em", "f1")


def _mean_scores(groups: List[dict]) -> dict:
    """The first seed's group with its EM and F1 averaged over the seeds (count and question WER
    are the same for every seed)."""
    mean = dict(groups[0])
    for key in SCORE_KEYS:
        mean[key] = sum(group[key] for group in groups) / len(groups)
    return mean


def mean_report(reports: List[dict]) -> dict:
    """The accent report of a pair (`reports/accent.py`) averaged over its seeds' reports: EM and
    F1 overall and of each group, and the F1 range of the mean country F1s."""
    if len(reports) == 1:
        return reports[0]
    first = reports[0]
    mean = {"overall": _mean_scores([report["overall"] for report in reports])}
    for key, groups in first.items():
        if key.startswith("by_"):
            mean[key] = {name: _mean_scores([report[key][name] for report in reports]) for name in groups
                         if all(name in report.get(key, {}) for report in reports)}
    mean["f1_range"] = f1_range(mean["by_country"]) if first.get("f1_range") is not None else None
    return mean


def seed_figures(archives: List[str], reports: List[dict], references: Optional[List[dict]]) -> List[Dict]:
    """Each seed's `{seed, archive, em, f1, em_drop, f1_drop}`; a drop is from the same seed's
    score on the clean reference set (None without one)."""
    figures = []
    for index, (archive, report) in enumerate(zip(archives, reports)):
        overall = report["overall"]
        base = references[index]["overall"] if references else None
        figures.append({
            "seed": index,
            "archive": archive,
            "em": overall["em"],
            "f1": overall["f1"],
            "em_drop": base["em"] - overall["em"] if base else None,
            "f1_drop": base["f1"] - overall["f1"] if base else None,
        })
    return figures
