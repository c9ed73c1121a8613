"""A pilot study's per-seed figures, read from its `results.json`, as a power calculation takes them:
how much a figure varies between training runs (seeds) of one arm, and between seed pairs.

An outcome is a robust model against its twin (a robustness row): `clean_f1` (the model's clean F1
minus the twin's) or `drop_difference` over one of the row's groups (the twin's mean drop minus
the model's; a generator group such as `held_out`, or a declared `set_groups` entry). Each needs
at least two seeds in each arm; the paired design needs as many in both.

`power_entry` answers for a planned design: the seeds per arm (or seed pairs) that a test needs
for a power, and what the pilot's number of seeds (or another) can detect. `add_retrospective_power`
puts such entries into a study's results (`power`), labelled retrospective: computed after the
runs from the runs themselves. Each design's seeds needed come with `seeds_needed_interval`: the
seeds needed at the two ends of the SD's 95% chi-square interval (with the pilot's few seeds the
SD, and so the seeds needed, is uncertain).
"""
import math
from dataclasses import dataclass
from typing import List, Optional, Sequence

import numpy as np

from srcframework.common.errors import InputError
from srcframework.metrics.power import (
    DESIGNS,
    seeds_needed_interval,
    tost_detectable_margin,
    tost_power,
    tost_seeds_needed,
    ttest_detectable,
    ttest_power,
    ttest_seeds_needed,
)
from srcframework.metrics.statistics import LEVEL
from srcframework.studies.seed_inference import random_seeds, seed_order

OUTCOMES = ("clean_f1", "drop_difference")
# the confidence of the between-seed SD's interval, and so of the seeds needed
SD_CONFIDENCE = 0.95


@dataclass(frozen=True)
class PilotFigures:
    """
    One outcome's per-seed figures in a pilot.

    # Parameters

    model : `str`
    twin : `str`
    outcome : `str`
        `clean_f1` or `drop_difference`.
    group : `str`, optional
        The group of noisy sets of a `drop_difference`.
    model_seeds : `List[float]`
        The model's figure in each seed (its clean F1, or its mean drop over the group).
    twin_seeds : `List[float]`
        The twin's, in the same seed order (paired by `random_seed` where the results record it).
    pairable : `bool`, optional (default = `True`)
        False where the arms' seeds differ: no seed pairs, only the independent design.
    """

    model: str
    twin: str
    outcome: str
    group: Optional[str]
    model_seeds: List[float]
    twin_seeds: List[float]
    pairable: bool = True

    @property
    def differences(self) -> Optional[List[float]]:
        """The seed-paired differences in the outcome's direction (None without paired seeds)."""
        if not self.pairable or len(self.model_seeds) != len(self.twin_seeds):
            return None
        if self.outcome == "clean_f1":
            return [m - t for m, t in zip(self.model_seeds, self.twin_seeds)]
        return [t - m for m, t in zip(self.model_seeds, self.twin_seeds)]

    def df(self, design: str) -> int:
        """The degrees of freedom of `sd(design)`: both arms' seeds less 2, or the seed pairs less 1."""
        if design == "independent":
            return len(self.model_seeds) + len(self.twin_seeds) - 2
        return len(self.differences or []) - 1

    def sd(self, design: str) -> float:
        """The between-seed standard deviation a design's power takes: pooled within arms
        (`independent`), or of the seed-paired differences (`paired`)."""
        if design == "independent":
            return math.sqrt((np.var(self.model_seeds, ddof=1) + np.var(self.twin_seeds, ddof=1)) / 2.0)
        differences = self.differences
        if differences is None:
            if not self.pairable:
                raise InputError(f"{self.model} and {self.twin} were trained with other seeds: no seed pairs for the "
                                 "paired design")
            raise InputError(f"{self.model} has {len(self.model_seeds)} seeds and {self.twin} {len(self.twin_seeds)}: "
                             "no seed pairs for the paired design")
        return float(np.std(differences, ddof=1))

    @property
    def label(self) -> str:
        return "clean F1 change" if self.outcome == "clean_f1" else f"drop difference ({self.group})"


def _row(results: dict, model: Optional[str]) -> dict:
    rows = results.get("robustness") or []
    if not rows:
        raise InputError("the pilot's results have no robustness rows (no model names a twin)")
    if model is None:
        return rows[0]
    for row in rows:
        if row["model"] == model:
            return row
    raise InputError(f"no robustness row of model {model!r}; the pilot's models with a twin: "
                     f"{', '.join(row['model'] for row in rows)}")


def _values(seeds: Sequence[dict], key: str) -> List[float]:
    return [float(seed[key]) for seed in seeds or []]


def pilot_figures(results: dict, outcome: str = "clean_f1", model: Optional[str] = None,
                  group: Optional[str] = None) -> PilotFigures:
    """
    The per-seed figures of `outcome` for `model` (default: the first robustness row) against its
    twin. `group` names the `drop_difference`'s group (default: the row's primary group).
    """
    if outcome not in OUTCOMES:
        raise InputError(f"the outcome is one of {', '.join(OUTCOMES)}, got {outcome!r}")
    row = _row(results, model)
    if outcome == "clean_f1":
        clean = row.get("clean") or {}
        mine, theirs, chosen = _values(clean.get("seeds"), "f1"), _values(clean.get("twin_seeds"), "f1"), None
    else:
        groups = {g["group"]: g for g in (row.get("groups") or []) + (row.get("set_groups") or [])}
        chosen = group or row.get("primary")
        if chosen not in groups:
            raise InputError(f"model {row['model']} has no group {chosen!r}; its groups: {', '.join(groups)}")
        found = groups[chosen]
        mine, theirs = _values(found.get("seeds"), "mean_drop"), _values(found.get("twin_seeds"), "mean_drop")
    if len(mine) < 2 or len(theirs) < 2:
        archives = {m["name"]: len(m.get("archives") or [m.get("archive")]) for m in results.get("models", [])}
        raise InputError(f"model {row['model']} and its twin {row['twin']} need at least 2 seeds each for a "
                         f"between-seed spread; the pilot has {archives.get(row['model'], len(mine))} and "
                         f"{archives.get(row['twin'], len(theirs))}")
    # seed k of the model pairs with the twin's archive of the same random_seed (seed_inference)
    try:
        order, _ = seed_order(row, random_seeds(results)) if results.get("models") else (None, "")
    except InputError:
        return PilotFigures(row["model"], row["twin"], outcome, chosen, mine, theirs, pairable=False)
    if order and len(order) == len(mine) == len(theirs):
        mine, theirs = [mine[k] for k, _ in order], [theirs[k] for _, k in order]
    return PilotFigures(row["model"], row["twin"], outcome, chosen, mine, theirs)


def power_entry(figures: PilotFigures, margin: Optional[float] = None, effect: Optional[float] = None,
                power: float = 0.8, alpha: float = LEVEL, seeds: Optional[int] = None) -> dict:
    """
    Seeds needed and what a planned design can detect, in both designs (the paired one where the
    pilot's seeds pair up). Exactly one of `margin` (equivalence, TOST; the true difference taken
    as 0) and `effect` (a two-sided t-test of a true difference of `effect`).

    # Parameters

    figures : `PilotFigures`
    margin : `float`, optional
    effect : `float`, optional
    power : `float`, optional (default = `0.8`)
    alpha : `float`, optional (default = `0.05`)
    seeds : `int`, optional
        The planned seeds per arm; default the pilot's (the fewer arm's).
    """
    if (margin is None) == (effect is None):
        raise InputError("give a margin (an equivalence test) or an effect (a difference test), one of the two")
    if margin is not None and not margin > 0:
        raise InputError(f"the equivalence margin must be a positive number of F1 points, got {margin:g}")
    if seeds is not None and seeds < 2:
        raise InputError(f"the planned seeds per arm must be at least 2, got {seeds}")
    planned = seeds if seeds is not None else min(len(figures.model_seeds), len(figures.twin_seeds))
    entry = {
        "model": figures.model, "twin": figures.twin, "outcome": figures.outcome, "group": figures.group,
        "pilot_seeds": [len(figures.model_seeds), len(figures.twin_seeds)],
        "sd_model": float(np.std(figures.model_seeds, ddof=1)), "sd_twin": float(np.std(figures.twin_seeds, ddof=1)),
        "test": "equivalence" if margin is not None else "difference",
        "margin": margin, "effect": effect, "power": power, "alpha": alpha, "planned_seeds": planned, "designs": {},
    }
    for design in DESIGNS:
        if design == "paired" and figures.differences is None:
            continue
        sd = figures.sd(design)
        df = figures.df(design)
        if margin is not None:
            needed = lambda spread, design=design: tost_seeds_needed(spread, margin, power, alpha, 0.0, design)  # noqa: E731
        else:
            needed = lambda spread, design=design: ttest_seeds_needed(spread, effect, power, alpha, design)  # noqa: E731
        if margin is not None:
            found = {"sd": sd, "seeds_needed": tost_seeds_needed(sd, margin, power, alpha, 0.0, design),
                     "planned_power": tost_power(planned, sd, margin, 0.0, alpha, design),
                     "planned_detects": tost_detectable_margin(planned, sd, power, alpha, 0.0, design)}
        else:
            found = {"sd": sd, "seeds_needed": ttest_seeds_needed(sd, effect, power, alpha, design),
                     "planned_power": ttest_power(planned, sd, effect, alpha, design),
                     "planned_detects": ttest_detectable(planned, sd, power, alpha, design)}
        found["seeds_needed_interval"] = seeds_needed_interval(needed, sd, df, SD_CONFIDENCE)
        entry["designs"][design] = found
    return entry


def add_retrospective_power(results: dict, margin: Optional[float] = None, reduction: Optional[float] = None,
                            power: float = 0.8, alpha: float = LEVEL, model: Optional[str] = None) -> List[dict]:
    """
    `results["power"]`, retrospective: for `model` (default every row with seeds in both arms),
    the clean-F1 equivalence within `margin` (default the study's), and, with `reduction` (a
    percentage), a difference test of the drop difference of the primary group and of each
    declared group at `reduction` % of the twin's mean drop (a bar's smallest reduction). Rows with
    one seed are left out.
    """
    margin = margin if margin is not None else (results.get("statistics") or {}).get("equivalence_margin", 1.5)
    entries = []
    for row in results.get("robustness") or []:
        if model is not None and row["model"] != model:
            continue
        try:
            clean = pilot_figures(results, "clean_f1", row["model"])
        except InputError:
            continue
        entries.append(power_entry(clean, margin=margin, power=power, alpha=alpha))
        if reduction is not None:
            primary = [g for g in row.get("groups") or [] if g["group"] == row.get("primary")]
            for group in primary + (row.get("set_groups") or []):
                figures = pilot_figures(results, "drop_difference", row["model"], group["group"])
                effect = reduction / 100.0 * group["twin_mean_drop"]
                entry = power_entry(figures, effect=effect, power=power, alpha=alpha)
                entry["reduction"] = reduction
                entries.append(entry)
    results["power"] = {"retrospective": True, "entries": entries,
                        "note": "computed after the runs, from the between-seed spread of the runs themselves"}
    return entries
