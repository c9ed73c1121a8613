import itertools
import math

import numpy as np
import pytest
from scipy import stats

from srcframework.metrics.statistics import (
    Resampler,
    bootstrap_indices,
    bootstrap_interval,
    draw_counts,
    holm,
    normal_p,
    paired_test,
    percentile_interval,
    randomisation_p,
    sign_matrix,
    family_plan,
    tost,
)


def scores(size: int, seed: int, scale: float = 100.0) -> np.ndarray:
    return np.random.default_rng(seed).random(size) * scale


def clustered(sizes, seed: int = 0):
    """Question ids, their clusters (cluster j holds sizes[j] questions) and scores."""
    ids, clusters = [], {}
    for j, size in enumerate(sizes):
        for k in range(size):
            qid = f"q{j:02d}_{k:02d}"
            ids.append(qid)
            clusters[qid] = f"c{j:02d}"
    return ids, clusters, scores(len(ids), seed)


def loop_cluster_means(ids, clusters, values, resamples, seed):
    """The reference: in each resample, draw as many clusters as there are, with replacement
    (the draws of `bootstrap_indices`), pool their questions and take the mean."""
    labels = sorted(set(clusters[qid] for qid in ids))
    members = {label: [i for i, qid in enumerate(ids) if clusters[qid] == label] for label in labels}
    means = []
    for row in bootstrap_indices(len(labels), resamples, seed):
        pooled = []
        for column in row:
            pooled += [values[i] for i in members[labels[column]]]
        means.append(sum(pooled) / len(pooled))
    return np.array(means)


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


def test_draw_counts_count_the_rows_of_the_index_draw():
    counts = draw_counts(7, 50, 3)
    for row, drawn in zip(counts, bootstrap_indices(7, 50, 3)):
        assert row.tolist() == [float(list(drawn).count(j)) for j in range(7)]
    assert (counts.sum(axis=1) == 7).all()


def test_cluster_bootstrap_equals_a_loop_over_drawn_paragraphs():
    ids, clusters, values = clustered([1, 4, 2, 6, 3, 5, 1, 2], seed=2)
    resampler = Resampler(300, seed=4, clusters=clusters)
    expected = loop_cluster_means(ids, clusters, values, 300, 4)
    assert resampler.means(ids, values) == pytest.approx(expected, abs=1e-9)
    assert resampler.interval(ids, values) == pytest.approx(percentile_interval(expected), abs=1e-9)
    # the questions in another order resample the same paragraphs
    order = np.random.default_rng(0).permutation(len(ids))
    assert resampler.means([ids[i] for i in order], values[order]) == pytest.approx(expected, abs=1e-9)


def test_question_unit_is_the_plain_bootstrap():
    ids = [f"q{i:03d}" for i in range(60)]
    values = scores(60, 6)
    assert Resampler(500, seed=2).interval(ids, values) == pytest.approx(bootstrap_interval(values, 500, 2), abs=1e-9)
    # a question without a known context is a cluster of its own
    assert Resampler(500, seed=2, clusters={}).interval(ids, values) == pytest.approx(bootstrap_interval(values, 500, 2))


def test_cluster_bootstrap_is_wider_when_questions_of_a_paragraph_agree():
    rng = np.random.default_rng(1)
    ids = [f"q{i:04d}" for i in range(600)]
    clusters = {qid: f"c{i // 10:03d}" for i, qid in enumerate(ids)}
    values = np.repeat((rng.random(60) < 0.5) * 100.0, 10)  # a paragraph's questions all right or all wrong
    by_question = Resampler(1000, clusters=None).interval(ids, values)
    by_context = Resampler(1000, clusters=clusters).interval(ids, values)
    assert (by_context[1] - by_context[0]) > 2.5 * (by_question[1] - by_question[0])


def test_seeds_are_resampled_with_the_contexts():
    ids, clusters, _ = clustered([2, 3, 1, 4], seed=0)
    values = np.stack([scores(len(ids), seed) for seed in (1, 2, 3)])
    resampler = Resampler(200, seed=5, clusters=clusters)
    seed_counts = resampler.seed_counts("m", 3)
    assert seed_counts.shape == (200, 3) and (seed_counts.sum(axis=1) == 3).all()
    assert resampler.seed_counts("m", 3) is seed_counts and not np.array_equal(resampler.seed_counts("n", 3), seed_counts)
    codes, counts = resampler.layout(ids)
    expected = []
    for r in range(200):
        total = 0.0
        for s in range(3):
            weight = sum(counts[r, codes[i]] for i in range(len(ids)))
            mean = sum(counts[r, codes[i]] * values[s, i] for i in range(len(ids))) / weight
            total += seed_counts[r, s] * mean / 3
        expected.append(total)
    assert resampler.means(ids, values, "m") == pytest.approx(expected, abs=1e-9)
    # seed variance widens the interval of a model whose seeds disagree
    spread = np.stack([values[0], values[0] + 20.0, values[0] - 20.0])
    one = Resampler(2000, seed=5, clusters=clusters).interval(ids, values[0])
    three = Resampler(2000, seed=5, clusters=clusters).interval(ids, spread, "m")
    assert three[1] - three[0] > one[1] - one[0]


def exact_flip_p(sums: np.ndarray) -> float:
    """The reference: every sign vector of the clusters, each with probability 2^-k."""
    observed = abs(sums.sum())
    hits = sum(abs(np.dot(signs, sums)) >= observed - 1e-9 for signs in itertools.product((-1, 1), repeat=len(sums)))
    return hits / 2 ** len(sums)


def test_cluster_randomisation_p_by_exact_enumeration():
    ids, clusters, first = clustered([3, 1, 4, 2, 2, 5], seed=8)
    second = np.where(np.random.default_rng(3).random(len(ids)) < 0.4, first, first * 0.3)
    labels = sorted(set(clusters.values()))
    sums = np.array([sum(first[i] - second[i] for i, qid in enumerate(ids) if clusters[qid] == label) for label in labels])
    result = Resampler(100, seed=1, clusters=clusters, permutations=20000).test(ids, first, second)
    assert result["p"] == pytest.approx(exact_flip_p(sums), abs=0.01)
    assert result["difference"] == pytest.approx(np.mean(first - second))


def test_normal_approximation_is_close_to_the_exact_randomisation_p():
    rng = np.random.default_rng(4)
    for shift in (0.0, 3.0, 6.0):
        sums = rng.normal(shift, 10.0, 16)
        assert normal_p(sums, 40) == pytest.approx(exact_flip_p(sums), abs=0.03)
    assert normal_p(np.zeros(4), 10) == 1.0


def test_randomisation_p_value_by_direct_enumeration():
    # three questions differ: the sign flips give differences of +-3/n and +-1/n, each with
    # probability 1/4 and 3/4; |d| >= 3/n has probability 1/4
    first, second = [100.0, 100.0, 100.0, 0.0], [0.0, 0.0, 0.0, 0.0]
    p = paired_test(first, second, resamples=200, seed=0, permutations=20000)["p"]
    assert p == pytest.approx(0.25, abs=0.01)


def test_enough_rounds_for_a_small_p():
    rng = np.random.default_rng(0)
    strong = (rng.random(300) < 0.7) * 100.0  # EM of a model right 70% of the time
    weak = np.where(rng.random(300) < 0.5, strong, 0.0)  # loses about half of those
    result = paired_test(strong, weak, resamples=1000, seed=0)
    assert result["p"] == pytest.approx(1 / 10001) and result["low"] > 0
    assert result["difference"] == pytest.approx(strong.mean() - weak.mean())


def test_identical_predictions_give_p_one_and_a_zero_width_interval():
    values = scores(80, 2)
    result = paired_test(values, values.copy(), resamples=500, seed=1)
    assert result == {"difference": 0.0, "low": 0.0, "high": 0.0, "p": 1.0}
    ids = [f"q{i}" for i in range(80)]
    for method in ("randomisation", "normal"):
        found = Resampler(100).test(ids, values, values.copy(), method=method)
        assert (found["difference"], found["low"], found["high"], found["p"]) == (0.0, 0.0, 0.0, 1.0)


def test_no_difference_is_not_significant():
    rng = np.random.default_rng(9)
    first = (rng.random(400) < 0.5) * 100.0
    second = first[rng.permutation(400)]  # the same accuracy, other questions
    result = paired_test(first, second, resamples=1000, seed=2)
    assert result["p"] > 0.05 and result["low"] < result["difference"] < result["high"]


def test_question_unit_test_is_paired_test():
    first, second = scores(30, 8), scores(30, 9)
    ids = [f"q{i:02d}" for i in range(30)]
    found = Resampler(1000, 5).test(ids, first, second)
    assert found.pop("draws").shape == (1000,)
    assert found == pytest.approx(paired_test(first, second, seed=5))


def test_sign_matrix_columns_do_not_depend_on_the_width_asked_for():
    wide = sign_matrix(100, 600, 3)
    assert wide.shape == (100, 600) and set(np.unique(wide)) == {-1, 1}
    assert np.array_equal(sign_matrix(100, 10, 3), wide[:, :10])
    assert abs(wide.mean()) < 0.02
    assert randomisation_p(np.zeros(5), 5, wide) == 1.0


def holm_reference(p_values):
    """Holm's step-down procedure as written: the i-th smallest p (1-based) gets
    max over j <= i of min(1, (m - j + 1) p_(j))."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    for rank, index in enumerate(order, 1):
        adjusted[index] = max(min(1.0, (m - j + 1) * p_values[order[j - 1]]) for j in range(1, rank + 1))
    return adjusted


def test_holm_equals_the_step_down_procedure():
    rng = np.random.default_rng(2)
    for size in (1, 2, 5, 17):
        p_values = list(rng.random(size) ** 3)
        assert holm(p_values) == pytest.approx(holm_reference(p_values))
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([None, 0.01, None, 0.02]) == [None, 0.02, None, 0.02]
    assert holm([]) == []


def test_tost_from_bootstrap_draws():
    draws = np.random.default_rng(0).normal(0.3, 0.5, 999)
    found = tost(draws, 1.5)
    assert found["p_lower"] == pytest.approx((np.sum(draws <= -1.5) + 1) / 1000)
    assert found["p_upper"] == pytest.approx((np.sum(draws >= 1.5) + 1) / 1000)
    assert found["p"] == max(found["p_lower"], found["p_upper"]) < 0.05
    low, high = percentile_interval(draws, 0.90)
    assert -1.5 < low and high < 1.5  # the 90% interval inside the margins: equivalent at 5%
    shifted = tost(draws - 1.4, 1.5)
    assert shifted["p"] > 0.05 and shifted["p_upper"] < 0.05  # could be 1.5 worse: not shown
    with pytest.raises(ValueError, match="margin must be positive"):
        tost(draws, 0.0)


def test_plan_gives_holm_room_or_falls_back_to_the_normal_approximation():
    assert family_plan(20) == ("randomisation", 10000)
    method, rounds = family_plan(120)
    assert method == "randomisation" and 120 / (rounds + 1) <= 0.005
    assert family_plan(630) == ("normal", 0)
    assert family_plan(630, permutations=200000) == ("randomisation", 200000)


def test_seed_and_resampler_reuse_draws():
    values = scores(30, 8)
    ids = [f"q{i:02d}" for i in range(30)]
    assert bootstrap_interval(values, seed=5) == bootstrap_interval(values, seed=5)
    assert bootstrap_interval(values, seed=5) != bootstrap_interval(values, seed=6)
    resampler = Resampler(1000, 5)
    assert resampler.layout(ids)[1] is resampler.layout(list(reversed(ids)))[1]
    assert resampler.interval(ids, values) == pytest.approx(bootstrap_interval(values, seed=5))


def test_bad_inputs_are_clear_errors():
    with pytest.raises(ValueError, match="same questions: 3 against 2"):
        paired_test([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="non-empty"):
        bootstrap_interval([])
    with pytest.raises(ValueError, match="at least one resample"):
        bootstrap_indices(3, 0, 0)
    with pytest.raises(ValueError, match="3 scores for 2 question ids"):
        Resampler(10).interval(["a", "b"], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="method must be"):
        Resampler(10).test(["a"], [1.0], [0.0], method="exact")
    with pytest.raises(ValueError, match="--permutations must be at least 1"):
        family_plan(3, permutations=0)
    assert math.isclose(normal_p(np.array([3.0]), 1), math.erfc(1 / math.sqrt(2)))


def test_means_of_some_questions_use_the_draws_of_all_of_them():
    resampler = Resampler(50, 2, clusters={"a": "p1", "b": "p1", "c": "p2", "d": "p3"})
    ids, values = ["a", "b", "c", "d"], [100.0, 0.0, 50.0, 20.0]
    assert np.allclose(resampler.means(ids, values, members=[True] * 4), resampler.means(ids, values))
    codes, counts = resampler.layout(ids)
    some = resampler.means(ids, values, members=[True, False, False, True])  # a (p1) and d (p3)
    drawn = counts[:, codes[0]] + counts[:, codes[3]]
    expected = (counts[:, codes[0]] * 100.0 + counts[:, codes[3]] * 20.0) / np.where(drawn > 0, drawn, 1)
    assert np.allclose(some[drawn > 0], expected[drawn > 0]) and np.isnan(some[drawn == 0]).all()


def test_range_permutation_test_keeps_group_sizes_and_counts_the_observed_range():
    from srcframework.metrics.statistics import range_permutation_test

    values = [1.0, 0.0, 1.0, 0.0, 1.0, 1.0]
    groups = ["a", "a", "b", "b", "c", "c"]
    found = range_permutation_test(values, groups, rounds=2000, seed=1)
    assert found["value"] == pytest.approx(1.0 - 0.5)
    # by enumeration: the share of the 90 distinct relabellings whose range reaches 0.5
    ranges = []
    for labels in set(itertools.permutations(groups)):
        means = {g: np.mean([v for v, l in zip(values, labels) if l == g]) for g in "abc"}
        ranges.append(max(means.values()) - min(means.values()))
    exact = np.mean([r >= 0.5 - 1e-9 for r in ranges])
    assert found["p"] == pytest.approx(exact, abs=0.03)
    assert range_permutation_test(values, groups, 2000, 1) == found  # deterministic for a seed


@pytest.mark.parametrize("values, groups, rounds, message", [
    ([1.0, 2.0], ["a"], 10, "1 group labels for 2 values"),
    ([1.0, 2.0], ["a", "a"], 10, "at least 2 groups"),
    ([1.0, 2.0], ["a", "b"], 0, "rounds must be a positive whole number"),
])
def test_range_permutation_test_refuses_bad_input(values, groups, rounds, message):
    from srcframework.metrics.statistics import range_permutation_test

    with pytest.raises(ValueError, match=message):
        range_permutation_test(values, groups, rounds)
