"""Tests whose unit is the training run: one figure per trained seed of each arm, the arms paired
by seed (seed k of a model against seed k of its twin, which share `SEED`).

The paragraph-cluster bootstrap of `statistics.py` holds the test questions' variance and, with
several seeds, resamples the few trained seeds; its randomisation tests flip seed-averaged
differences, so their p-values are conditional on the models that were trained. The tests here
ask the other question: would another set of training runs, on the same test questions, show
the difference? They take one number per seed (a seed's mean drop, its clean F1) and use
scipy and statsmodels for what those do well:

- `paired_seed_test`: the paired t-test over seeds (`scipy.stats.ttest_rel`) with its interval
  (Student's t with `seeds - 1` degrees of freedom);
- `paired_seed_equivalence`: two one-sided paired t-tests within a margin
  (`statsmodels.stats.weightstats.ttost_paired`) and the `1 - 2 alpha` interval that goes with them;
- `holm_adjusted`: Holm-Bonferroni over a family (`statsmodels.stats.multitest.multipletests`),
  None standing for a test not made.
"""
import math
from typing import Dict, List, Optional, Sequence

import numpy as np
from scipy import stats

from srcframework.common.errors import InputError
from srcframework.metrics.statistics import CONFIDENCE, LEVEL


def _paired(first: Sequence[float], second: Sequence[float]) -> np.ndarray:
    a = np.asarray(first, dtype=np.float64)
    b = np.asarray(second, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise InputError(f"seed-paired figures need one number per seed on each side, got {a.shape} and {b.shape}")
    if a.size < 2:
        raise InputError(f"a test over seeds needs at least 2 seed pairs, got {a.size}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise InputError("seed-paired figures must be finite numbers")
    return a - b


def paired_seed_test(first: Sequence[float], second: Sequence[float], confidence: float = CONFIDENCE) -> Dict:
    """
    The paired t-test of `first - second` over seeds (`first[k]` and `second[k]`: seed k of each arm).

    # Parameters

    first : `Sequence[float]`
        One figure per seed of the first arm.
    second : `Sequence[float]`
        The same seeds of the second arm, in the same order.
    confidence : `float`, optional (default = `0.95`)

    # Returns

    `{"seeds", "differences", "difference", "sd", "low", "high", "df", "t", "p"}`: the per-seed
    differences, their mean and standard deviation, the `confidence` interval of the mean
    (Student's t, `seeds - 1` degrees of freedom) and the two-sided p. Identical differences (no
    spread) give a zero-width interval, and p = 1 when they are all 0, else 0.
    """
    delta = _paired(first, second)
    mean, sd, df = float(delta.mean()), float(delta.std(ddof=1)), int(delta.size - 1)
    found = {"seeds": int(delta.size), "differences": [float(x) for x in delta], "difference": mean, "sd": sd, "df": df}
    if sd == 0.0:
        return dict(found, low=mean, high=mean, t=None, p=1.0 if mean == 0.0 else 0.0)
    result = stats.ttest_rel(first, second)
    interval = result.confidence_interval(confidence)
    return dict(found, low=float(interval.low), high=float(interval.high), t=float(result.statistic),
                p=float(result.pvalue))


def paired_seed_equivalence(first: Sequence[float], second: Sequence[float], margin: float, level: float = LEVEL) -> Dict:
    """
    Two one-sided paired t-tests over seeds that `first - second` lies within `(-margin, margin)`
    (`statsmodels`' `ttost_paired`).

    # Parameters

    first : `Sequence[float]`
    second : `Sequence[float]`
    margin : `float`
        The equivalence margin, in the figures' units (F1 points).
    level : `float`, optional (default = `0.05`)
        The level of each one-sided test; the interval that goes with the tests is the
        `1 - 2 level` one.

    # Returns

    `{"margin", "p", "p_lower", "p_upper", "low", "high", "confidence"}`: `p` is the larger of the
    two one-sided p-values (`p_lower` of "difference <= -margin", `p_upper` of "difference >=
    margin"); equivalence is shown at `level` exactly when the `1 - 2 level` interval lies inside
    the margins.
    """
    from statsmodels.stats.weightstats import ttost_paired

    if not margin > 0:
        raise InputError(f"the equivalence margin must be positive, got {margin}")
    delta = _paired(first, second)
    confidence = 1.0 - 2.0 * level
    mean, sd = float(delta.mean()), float(delta.std(ddof=1))
    if sd == 0.0:
        inside = -margin < mean < margin
        p_lower = 0.0 if mean > -margin else 1.0
        p_upper = 0.0 if mean < margin else 1.0
        return {"margin": margin, "p": 0.0 if inside else 1.0, "p_lower": p_lower, "p_upper": p_upper,
                "low": mean, "high": mean, "confidence": confidence}
    p, lower, upper = ttost_paired(np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64),
                                   -margin, margin)
    half = stats.t.ppf(1.0 - level, delta.size - 1) * sd / math.sqrt(delta.size)
    return {"margin": margin, "p": float(p), "p_lower": float(lower[1]), "p_upper": float(upper[1]),
            "low": float(mean - half), "high": float(mean + half), "confidence": confidence}


def holm_adjusted(p_values: Sequence[Optional[float]]) -> List[Optional[float]]:
    """Holm-Bonferroni adjusted p-values (`multipletests(method="holm")`), in the given order;
    None (no test) stays None and does not count in the family."""
    from statsmodels.stats.multitest import multipletests

    present = [(index, p) for index, p in enumerate(p_values) if p is not None]
    adjusted: List[Optional[float]] = [None] * len(p_values)
    if present:
        corrected = multipletests([p for _, p in present], method="holm")[1]
        for (index, _), p in zip(present, corrected):
            adjusted[index] = float(p)
    return adjusted
