import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.weightstats import ttost_paired

from srcframework.common.errors import InputError
from srcframework.metrics.seed_tests import holm_adjusted, paired_seed_equivalence, paired_seed_test
from srcframework.metrics.statistics import holm

# the robust-training study's BiDAF twins: mean drop over NoiseQA's three sets, by seed
TWIN = [7.448504849337601, 9.530082594974614, 8.01716642450318]
AUGMENTED = [5.739408309704137, 4.808439083166822, 3.244363441623068]


def test_the_paired_t_interval_over_seeds():
    test = paired_seed_test(TWIN, AUGMENTED)
    assert test["seeds"] == 3 and test["df"] == 2
    assert test["differences"] == pytest.approx([1.709, 4.722, 4.773], abs=1e-3)
    assert test["difference"] == pytest.approx(3.7345, abs=1e-4)
    # the interval a reviewer computes by hand: mean +- t(0.975, 2) x sd / sqrt(3)
    delta = np.subtract(TWIN, AUGMENTED)
    half = stats.t.ppf(0.975, 2) * delta.std(ddof=1) / np.sqrt(3)
    assert (test["low"], test["high"]) == pytest.approx((delta.mean() - half, delta.mean() + half))
    assert round(test["low"], 1) == -0.6 and round(test["high"], 1) == 8.1
    assert test["p"] == pytest.approx(stats.ttest_rel(TWIN, AUGMENTED).pvalue)
    assert 0.05 < test["p"] < 0.1  # the pooled D of the protocol is not shown over training runs


def test_no_spread_between_seeds():
    assert paired_seed_test([1.0, 2.0], [1.0, 2.0])["p"] == 1.0
    same = paired_seed_test([3.0, 4.0], [1.0, 2.0])
    assert same["low"] == same["high"] == 2.0 and same["p"] == 0.0


@pytest.mark.parametrize("seed", range(6))
def test_equivalence_is_ttost_paired_and_its_interval(seed):
    rng = np.random.default_rng(seed)
    first, second = rng.normal(50, 1.5, 5), rng.normal(50.3, 1.5, 5)
    found = paired_seed_equivalence(first, second, 1.5)
    assert found["p"] == pytest.approx(ttost_paired(first, second, -1.5, 1.5)[0])
    inside = -1.5 < found["low"] and found["high"] < 1.5
    assert (found["p"] < 0.05) == inside
    assert found["confidence"] == pytest.approx(0.9)


def test_holm_is_statsmodels_and_agrees_with_the_bootstrap_tables_holm():
    p = [0.01, None, 0.04, 0.03, 0.2]
    adjusted = holm_adjusted(p)
    assert adjusted[1] is None
    assert [a for a in adjusted if a is not None] == pytest.approx([x for x in holm(p) if x is not None])
    assert holm_adjusted([None, None]) == [None, None]


@pytest.mark.parametrize("first, second, message", [
    ([1.0], [2.0], "at least 2 seed pairs"),
    ([1.0, 2.0], [1.0, 2.0, 3.0], "one number per seed"),
    ([1.0, float("nan")], [1.0, 2.0], "finite"),
])
def test_bad_seed_figures_are_one_line_errors(first, second, message):
    with pytest.raises(InputError, match=message):
        paired_seed_test(first, second)
    with pytest.raises(InputError, match="margin must be positive"):
        paired_seed_equivalence([1.0, 2.0], [1.0, 3.0], 0)
