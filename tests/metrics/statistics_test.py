import numpy as np
import pytest
from scipy import stats

from srcframework.metrics.statistics import Resampler, bootstrap_indices, bootstrap_interval, paired_test


def scores(size: int, seed: int, scale: float = 100.0) -> np.ndarray:
    return np.random.default_rng(seed).random(size) * scale


def test_interval_is_scipys_percentile_bootstrap_for_the_same_draws():
    values = scores(57, 1)
    ours = bootstrap_interval(values, resamples=400, seed=3)
    theirs = stats.bootstrap((values,), np.mean, n_resamples=400, method="percentile", vectorized=True,
                             rng=np.random.default_rng(3)).confidence_interval
    assert ours == pytest.approx((theirs.low, theirs.high), abs=1e-9)
    assert ours[0] < values.mean() < ours[1]


def test_paired_interval_is_scipys_paired_bootstrap_of_the_difference():
    first, second = scores(40, 4), scores(40, 5)

    def difference(a, b, axis=-1):
        return a.mean(axis=axis) - b.mean(axis=axis)

    result = paired_test(first, second, resamples=300, seed=7)
    theirs = stats.bootstrap((first, second), difference, n_resamples=300, method="percentile", paired=True,
                             vectorized=True, rng=np.random.default_rng(7)).confidence_interval
    assert (result["low"], result["high"]) == pytest.approx((theirs.low, theirs.high), abs=1e-9)
    assert result["difference"] == pytest.approx(first.mean() - second.mean())


def test_interval_by_direct_computation_on_a_small_case():
    values = [0.0, 100.0, 100.0, 0.0, 100.0]
    indices = bootstrap_indices(5, 200, 0)
    means = np.asarray(values)[indices].mean(axis=1)
    assert bootstrap_interval(values, indices=indices) == pytest.approx(tuple(np.percentile(means, [2.5, 97.5])))
    assert indices.shape == (200, 5) and indices.min() >= 0 and indices.max() <= 4


def test_a_known_large_difference_is_significant():
    rng = np.random.default_rng(0)
    strong = (rng.random(300) < 0.7) * 100.0  # EM of a model right 70% of the time
    weak = np.where(rng.random(300) < 0.5, strong, 0.0)  # loses about half of those
    result = paired_test(strong, weak, resamples=1000, seed=0)
    assert result["p"] < 0.01 and result["low"] > 0
    assert result["difference"] == pytest.approx(strong.mean() - weak.mean())


def test_identical_predictions_give_p_one_and_a_zero_width_interval():
    values = scores(80, 2)
    result = paired_test(values, values.copy(), resamples=500, seed=1)
    assert result == {"difference": 0.0, "low": 0.0, "high": 0.0, "p": 1.0}


def test_no_difference_is_not_significant():
    rng = np.random.default_rng(9)
    first = (rng.random(400) < 0.5) * 100.0
    second = first[rng.permutation(400)]  # the same accuracy, other questions
    result = paired_test(first, second, resamples=1000, seed=2)
    assert result["p"] > 0.05 and result["low"] < result["difference"] < result["high"]


def test_randomisation_p_value_by_direct_enumeration():
    # three questions differ: the sign flips give differences of +-3/n and +-1/n, each with
    # probability 1/4 and 3/4; |d| >= 3/n has probability 1/4
    first, second = [100.0, 100.0, 100.0, 0.0], [0.0, 0.0, 0.0, 0.0]
    p = paired_test(first, second, resamples=20000, seed=0)["p"]
    assert p == pytest.approx(0.25, abs=0.01)


def test_seed_and_resampler_reuse_draws():
    values = scores(30, 8)
    assert bootstrap_interval(values, seed=5) == bootstrap_interval(values, seed=5)
    assert bootstrap_interval(values, seed=5) != bootstrap_interval(values, seed=6)
    resampler = Resampler(1000, 5)
    assert resampler.indices(30) is resampler.indices(30)
    assert resampler.interval(values) == bootstrap_interval(values, seed=5)
    assert resampler.test(values, values * 0.5) == paired_test(values, values * 0.5, seed=5)


def test_bad_inputs_are_clear_errors():
    with pytest.raises(ValueError, match="same questions: 3 against 2"):
        paired_test([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="non-empty"):
        bootstrap_interval([])
    with pytest.raises(ValueError, match="at least one resample"):
        bootstrap_indices(3, 0, 0)
