import math

import numpy as np
import pytest
from statsmodels.stats.power import TTestIndPower, TTestPower
from statsmodels.stats.weightstats import ttost_ind, ttost_paired

from srcframework.common.errors import InputError
from srcframework.metrics.power import (
    tost_detectable_margin,
    tost_power,
    tost_seeds_needed,
    ttest_detectable,
    ttest_power,
    ttest_seeds_needed,
)


def simulated_tost_power(n, sd, margin, design, rounds=3000, seed=0):
    """The share of simulated pilots of which statsmodels' TOST shows equivalence (true difference 0)."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(rounds):
        a, b = rng.normal(0, sd, n), rng.normal(0, sd, n)
        if design == "independent":
            p = ttost_ind(a, b, -margin, margin)[0]
        else:  # paired: differences with standard deviation sd
            p = ttost_paired(a, a - rng.normal(0, sd, n), -margin, margin)[0]
        hits += p < 0.05
    return hits / rounds


@pytest.mark.parametrize("design, n", [("independent", 12), ("paired", 9)])
def test_the_exact_tost_power_is_what_statsmodels_tost_shows_in_simulation(design, n):
    exact = tost_power(n, 1.5, 1.5, design=design)
    simulated = simulated_tost_power(n, 1.5, 1.5, design)
    assert abs(exact - simulated) < 3.5 * math.sqrt(exact * (1 - exact) / 3000)


def test_the_robust_training_answer():
    """Clean F1's between-seed SD in the study is about 1.5 in both arms: TOST within 1.5 F1 at 80%
    needs about 18-21 seeds per arm, and 3 seeds have almost no chance."""
    sd = math.sqrt((1.523314638201141 ** 2 + 1.51154386465128 ** 2) / 2)
    needed = tost_seeds_needed(sd, 1.5)
    assert needed == 19 and 18 <= needed <= 21
    assert tost_power(needed, sd, 1.5) >= 0.8 > tost_power(needed - 1, sd, 1.5)
    assert tost_power(3, sd, 1.5) < 0.05
    margin = tost_detectable_margin(3, sd)
    assert tost_power(3, sd, margin) == pytest.approx(0.8, abs=0.01) and margin > 4


def test_power_grows_with_seeds_and_margin():
    powers = [tost_power(n, 2.0, 1.5) for n in range(5, 40, 3)]  # (at 2 to 4 seeds it is near 0 and uneven)
    assert powers == sorted(powers)
    assert tost_power(10, 2.0, 3.0) > tost_power(10, 2.0, 1.5)
    assert tost_power(10, 2.0, 1.5, difference=1.0) < tost_power(10, 2.0, 1.5)


def test_difference_tests_are_statsmodels():
    assert ttest_seeds_needed(1.0, 1.0) == math.ceil(TTestIndPower().solve_power(1.0, None, 0.05, 0.8))
    assert ttest_seeds_needed(2.0, 1.0, design="paired") == math.ceil(TTestPower().solve_power(0.5, None, 0.05, 0.8))
    detectable = ttest_detectable(5, 1.2)
    assert ttest_power(5, 1.2, detectable) == pytest.approx(0.8, abs=1e-6)


@pytest.mark.parametrize("call, message", [
    (lambda: tost_power(1, 1.0, 1.5), "at least 2"),
    (lambda: tost_power(5, 0.0, 1.5), "standard deviation must be a positive"),
    (lambda: tost_power(5, 1.0, -1.0), "margin must be positive"),
    (lambda: tost_seeds_needed(1.0, 1.5, power=1.2), "power must lie between 0 and 1"),
    (lambda: tost_seeds_needed(1.0, 1.5, difference=2.0), "not inside the margin"),
    (lambda: ttest_seeds_needed(1.0, 0.0), "non-zero"),
    (lambda: tost_power(5, 1.0, 1.5, design="crossed"), "design is one of independent, paired"),
])
def test_bad_input_is_a_one_line_error(call, message):
    with pytest.raises(InputError, match=message):
        call()


def test_the_sd_interval_is_the_chi_square_interval_of_a_standard_deviation():
    from scipy import stats

    from srcframework.metrics.power import sd_interval

    low, high = sd_interval(2.0, 4)
    assert low == pytest.approx(2.0 * (4 / stats.chi2.ppf(0.975, 4)) ** 0.5)
    assert high == pytest.approx(2.0 * (4 / stats.chi2.ppf(0.025, 4)) ** 0.5)
    assert low < 2.0 < high
    # a simulation: the interval covers the true SD about 95% of the time
    rng = np.random.default_rng(0)
    draws = rng.normal(0.0, 1.5, size=(4000, 5))
    covered = sum(lo <= 1.5 <= hi for lo, hi in (sd_interval(float(np.std(row, ddof=1)), 4) for row in draws))
    assert 0.93 < covered / 4000 < 0.97


def test_the_seeds_needed_interval_takes_the_seeds_at_both_ends():
    from srcframework.metrics.power import seeds_needed_interval, sd_interval, tost_seeds_needed

    found = seeds_needed_interval(lambda sd: tost_seeds_needed(sd, 1.5), 1.5, 4)
    sd_low, sd_high = sd_interval(1.5, 4)
    assert (found["sd_low"], found["sd_high"], found["df"]) == (sd_low, sd_high, 4)
    assert found["low"] == tost_seeds_needed(sd_low, 1.5) < tost_seeds_needed(1.5, 1.5) < found["high"]
    assert found["high"] == tost_seeds_needed(sd_high, 1.5)


@pytest.mark.parametrize("sd, df, confidence, message", [
    (0.0, 4, 0.95, "standard deviation must be a positive number"),
    (1.0, 0, 0.95, "degrees of freedom must be a whole number of at least 1"),
    (1.0, 4, 1.5, "confidence must lie between 0 and 1"),
])
def test_a_bad_sd_interval_input_is_one_line(sd, df, confidence, message):
    from srcframework.metrics.power import sd_interval

    with pytest.raises(InputError, match=message):
        sd_interval(sd, df, confidence)


@pytest.mark.parametrize("df, shift", [(1, 3.0), (3, 4.0), (6, 2.5), (10, 0.5)])
def test_the_t_test_power_integral_is_scipys_noncentral_t_where_that_has_a_value(df, shift):
    from scipy import stats

    from srcframework.metrics.power import t_test_power

    critical = stats.t.ppf(0.975, df)
    assert t_test_power(df, shift, 0.05) == pytest.approx(
        stats.nct.sf(critical, df, shift) + stats.nct.cdf(-critical, df, shift), abs=1e-6)


def test_an_effect_of_many_sds_with_few_seeds_has_a_power_not_nan_and_seeds_needed_grow_with_the_sd():
    import math

    from srcframework.metrics.power import ttest_power, ttest_seeds_needed

    # statsmodels gives NaN here (an effect of 9.4 SDs, 2 seed pairs); a NaN once made the search skip n
    power = ttest_power(2, 0.532, 5.0, design="paired")
    assert not math.isnan(power) and 0.6 < power < 0.8
    needed = [ttest_seeds_needed(sd, 5.0, design="paired") for sd in (0.3, 0.532, 1.0, 2.0, 6.4)]
    assert needed == sorted(needed) and needed[0] == 2
