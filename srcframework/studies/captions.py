"""The notes under a study's tables that say how their intervals and tests were computed, from the
`statistics` settings the results record."""
from typing import List

from srcframework.metrics.statistics import LEVEL
from srcframework.studies.cells import SIGNIFICANT


def level_of(results: dict) -> float:
    """The significance level the results' tests used (`statistics.significance_level`), else
    `metrics.statistics.LEVEL`: what a caption says a p is compared with."""
    return (results.get("statistics") or {}).get("significance_level", LEVEL)


def _resampled(settings: dict) -> str:
    """What the bootstrap draws, in words."""
    if settings.get("bootstrap_unit", "question") == "question":
        return "the questions"
    return "the contexts (paragraphs), each with all its questions,"


def interval_note(results: dict) -> List[str]:
    settings = results.get("statistics")
    if not settings:
        return []
    level = round(100 * settings["confidence"])
    return [
        f"[low, high]: {level}% percentile bootstrap interval ({settings['bootstrap']} resamples of {_resampled(settings)} "
        f"with replacement, seed {settings['seed']}; the seeds of a model with several archives are resampled too); a "
        "difference's interval resamples the same question ids on both sides (paired)."
    ]


def test_note(settings: dict, family: str, compared: str) -> str:
    """How a family's p-values were computed, and what † means."""
    found = (settings.get("families") or {}).get(family) or {}
    unit = "contexts" if settings.get("bootstrap_unit") == "context" else "questions"
    if found.get("method") == "normal":
        how = f"the normal approximation of a {settings['test']} test ({unit} flipped together)"
    else:
        how = f"a {settings['test']} test ({found.get('rounds', settings.get('permutations'))} rounds, {unit} flipped together)"
    return (f"p: uncorrected two-sided p of {how} of {compared}, pairing questions by id; p (Holm): "
            f"{settings.get('correction', 'Holm-Bonferroni')}-corrected over this table's {found.get('tests', 0)} tests; "
            f"{SIGNIFICANT}: p (Holm) < {settings['significance_level']:g} (only the corrected p marks a difference).")


def statistics_notes(results: dict, family: str, compared: str) -> List[str]:
    settings = results.get("statistics")
    if not settings:
        return []
    return interval_note(results) + [test_note(settings, family, compared)]

