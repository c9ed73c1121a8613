"""How many training runs (seeds) a comparison of two arms needs, before the runs.

Two tests, each in two designs:

- **equivalence** (TOST within `+-margin`, level `alpha` each side): the power is exact, the
  chance over the estimate's normal distribution and its standard error's scaled chi-square that
  the `1 - 2 alpha` t-interval lies inside the margins (`tost_power`, one numerical integral;
  the tests check it against a simulation of `statsmodels`' `ttost_ind`);
- **difference** (two-sided t-test of an effect): `statsmodels`' `TTestIndPower` and `TTestPower`.

`independent`: `n` seeds per arm, the arms unrelated (two-sample t, `2n - 2` degrees of freedom;
`sd` is the between-seed standard deviation within an arm). `paired`: `n` seed pairs, seed k of
one arm with seed k of the other (paired t, `n - 1` degrees of freedom; `sd` is that of the
seed-paired differences).

The SD comes from a few pilot seeds, so the seeds needed are uncertain too: `sd_interval` is the
chi-square confidence interval of a standard deviation with its degrees of freedom (`2n - 2` for
arms pooled, `n - 1` for seed pairs), and `seeds_needed_interval` the seeds needed at its two ends.
"""
import math
from typing import Callable, Optional

import numpy as np
from scipy import integrate, stats

from srcframework.common.errors import InputError
from srcframework.metrics.statistics import LEVEL

DESIGNS = ("independent", "paired")
MAX_SEEDS = 100000


def _check(sd: float, alpha: float, design: str) -> None:
    if not (isinstance(sd, (int, float)) and math.isfinite(sd) and sd > 0):
        raise InputError(f"the between-seed standard deviation must be a positive number, got {sd!r}")
    if not 0 < alpha < 0.5:
        raise InputError(f"alpha must lie between 0 and 0.5, got {alpha!r}")
    if design not in DESIGNS:
        raise InputError(f"the design is one of {', '.join(DESIGNS)}, got {design!r}")


def _check_power(power: float) -> None:
    if not 0 < power < 1:
        raise InputError(f"the power must lie between 0 and 1, got {power!r}")


def _spread(n: int, sd: float, design: str):
    """`(degrees of freedom, standard error of the difference)` of `n` seeds per arm (or pairs)."""
    if design == "independent":
        return 2 * n - 2, sd * math.sqrt(2.0 / n)
    return n - 1, sd / math.sqrt(n)


def tost_power(n: int, sd: float, margin: float, difference: float = 0.0, alpha: float = LEVEL,
               design: str = "independent") -> float:
    """
    The power of two one-sided t-tests of equivalence within `+-margin`.

    # Parameters

    n : `int`
        Seeds per arm (`independent`) or seed pairs (`paired`), at least 2.
    sd : `float`
        The between-seed standard deviation (see the module docstring).
    margin : `float`
    difference : `float`, optional (default = `0.0`)
        The true difference the power is computed at.
    alpha : `float`, optional (default = `0.05`)
    design : `str`, optional (default = `"independent"`)
    """
    _check(sd, alpha, design)
    if not margin > 0:
        raise InputError(f"the equivalence margin must be positive, got {margin!r}")
    if int(n) != n or n < 2:
        raise InputError(f"the number of seeds must be a whole number of at least 2, got {n!r}")
    df, se = _spread(int(n), sd, design)
    critical = float(stats.t.ppf(1.0 - alpha, df))
    # the test passes when |estimate| stays inside margin - critical x (estimated standard error),
    # which needs the estimated error below margin / critical: chi-square values up to `top`
    top = df * (margin / (critical * se)) ** 2

    def density(x: float) -> float:
        reach = margin - critical * se * math.sqrt(x / df)
        inside = stats.norm.cdf((reach - difference) / se) - stats.norm.cdf((-reach - difference) / se)
        return max(0.0, float(inside)) * float(stats.chi2.pdf(x, df))

    value, _ = integrate.quad(density, 0.0, top, limit=200)
    return min(1.0, max(0.0, float(value)))


def _smallest(passes: Callable[[int], bool], what: str) -> int:
    """The smallest n >= 2 with `passes(n)` (monotone in n): doubling, then bisection."""
    high = 2
    while not passes(high):
        high *= 2
        if high > MAX_SEEDS:
            raise InputError(f"more than {MAX_SEEDS} seeds per arm would be needed for {what}")
    low = max(2, high // 2)
    if passes(low):
        return low
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if passes(middle) else (middle, high)
    return high


def tost_seeds_needed(sd: float, margin: float, power: float = 0.8, alpha: float = LEVEL, difference: float = 0.0,
                      design: str = "independent") -> int:
    """The fewest seeds per arm (or seed pairs) whose `tost_power` reaches `power`."""
    _check_power(power)
    if not abs(difference) < margin:
        raise InputError(f"a true difference of {difference:g} is not inside the margin of {margin:g}: "
                         "equivalence cannot be shown")
    return _smallest(lambda n: tost_power(n, sd, margin, difference, alpha, design) >= power,
                     f"equivalence within {margin:g}")


def tost_detectable_margin(n: int, sd: float, power: float = 0.8, alpha: float = LEVEL, difference: float = 0.0,
                           design: str = "independent") -> float:
    """The smallest margin within which `n` seeds per arm (or pairs) show equivalence with `power`
    (bisection to 0.001 of the standard deviation)."""
    _check_power(power)
    low, high = abs(difference), abs(difference) + sd
    while tost_power(n, sd, high, difference, alpha, design) < power:
        low, high = high, high * 2
    while high - low > 1e-3 * sd:
        middle = (low + high) / 2
        low, high = (low, middle) if tost_power(n, sd, middle, difference, alpha, design) >= power else (middle, high)
    return high


def _t_power(design: str, size: float, n: int, alpha: float) -> float:
    """statsmodels' power of a two-sided t-test: `TTestIndPower` (n per arm) or `TTestPower` (n pairs)."""
    from statsmodels.stats.power import TTestIndPower, TTestPower

    if design == "independent":
        found = float(TTestIndPower().power(effect_size=size, nobs1=n, alpha=alpha, alternative="two-sided"))
        df, shift = 2 * n - 2, size * math.sqrt(n / 2.0)
    else:
        found = float(TTestPower().power(effect_size=size, nobs=n, alpha=alpha, alternative="two-sided"))
        df, shift = n - 1, size * math.sqrt(n)
    if math.isnan(found):
        # statsmodels' noncentral t gives NaN far in its tail (an effect of many SDs with few seeds)
        found = t_test_power(df, shift, alpha)
    return found


def t_test_power(df: int, shift: float, alpha: float) -> float:
    """The power of a two-sided t-test at `alpha` with `df` degrees of freedom whose statistic is
    noncentral t with noncentrality `shift`, from its definition: T = (Z + shift) / sqrt(V / df)
    with V ~ chi2(df), so the power is the mean over V of the normal chance that |T| passes the
    critical value (one integral; finite where scipy's and statsmodels' noncentral t give NaN)."""
    critical = float(stats.t.ppf(1 - alpha / 2, df))

    def passing(v: float) -> float:
        bound = critical * math.sqrt(v / df)
        return (stats.norm.sf(bound - shift) + stats.norm.cdf(-bound - shift)) * stats.chi2.pdf(v, df)

    return float(min(1.0, integrate.quad(passing, 0, np.inf, limit=200)[0]))


def ttest_seeds_needed(sd: float, effect: float, power: float = 0.8, alpha: float = LEVEL,
                       design: str = "independent") -> int:
    """The fewest seeds per arm (or seed pairs) for a two-sided t-test at `alpha` to find a true
    difference of `effect` (in the figures' units) with `power`."""
    _check(sd, alpha, design)
    _check_power(power)
    if not (math.isfinite(effect) and effect != 0):
        raise InputError(f"the effect must be a non-zero number, got {effect!r}")
    size = abs(effect) / sd
    return _smallest(lambda n: _t_power(design, size, n, alpha) >= power, f"an effect of {effect:g}")


def ttest_detectable(n: int, sd: float, power: float = 0.8, alpha: float = LEVEL, design: str = "independent") -> float:
    """The smallest true difference (in the figures' units) that a two-sided t-test of `n` seeds
    per arm (or pairs) finds with `power`."""
    _check(sd, alpha, design)
    _check_power(power)
    if int(n) != n or n < 2:
        raise InputError(f"the number of seeds must be a whole number of at least 2, got {n!r}")
    from statsmodels.stats.power import TTestIndPower, TTestPower

    if design == "independent":
        size = TTestIndPower().solve_power(effect_size=None, nobs1=int(n), alpha=alpha, power=power, alternative="two-sided")
    else:
        size = TTestPower().solve_power(effect_size=None, nobs=int(n), alpha=alpha, power=power, alternative="two-sided")
    return float(np.squeeze(size)) * sd


def ttest_power(n: int, sd: float, effect: float, alpha: float = LEVEL, design: str = "independent") -> float:
    """The power of a two-sided t-test of `n` seeds per arm (or pairs) at a true difference `effect`."""
    _check(sd, alpha, design)
    return _t_power(design, abs(effect) / sd, int(n), alpha)


def sd_interval(sd: float, df: int, confidence: float = 0.95):
    """`(low, high)`: the chi-square interval of a normal standard deviation estimated as `sd` with
    `df` degrees of freedom: `sd * sqrt(df / chi2(1 - a/2, df))` to `sd * sqrt(df / chi2(a/2, df))`."""
    if not (isinstance(sd, (int, float)) and math.isfinite(sd) and sd > 0):
        raise InputError(f"the standard deviation must be a positive number, got {sd!r}")
    if int(df) != df or df < 1:
        raise InputError(f"the degrees of freedom must be a whole number of at least 1, got {df!r}")
    if not 0 < confidence < 1:
        raise InputError(f"the confidence must lie between 0 and 1, got {confidence!r}")
    tail = (1.0 - confidence) / 2.0
    return (sd * math.sqrt(df / float(stats.chi2.ppf(1.0 - tail, df))),
            sd * math.sqrt(df / float(stats.chi2.ppf(tail, df))))


def seeds_needed_interval(needed: Callable[[float], int], sd: float, df: int, confidence: float = 0.95) -> dict:
    """`{"sd_low", "sd_high", "df", "confidence", "low", "high"}`: the SD's chi-square interval and
    `needed(sd)` (the seeds a test needs at that SD, increasing in it) at its two ends; `high` is
    None where more than `MAX_SEEDS` would be needed."""
    sd_low, sd_high = sd_interval(sd, df, confidence)
    try:
        high: Optional[int] = needed(sd_high)
    except InputError:
        high = None
    return {"sd_low": sd_low, "sd_high": sd_high, "df": int(df), "confidence": confidence,
            "low": needed(sd_low), "high": high}
