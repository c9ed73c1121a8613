"""Bootstrap intervals, paired tests, equivalence tests and multiple-test correction over
per-question scores, vectorised with numpy (no Python loop over resamples).

Questions may be resampled in clusters: the questions of one SQuAD paragraph (context) are not
independent, so a cluster bootstrap draws contexts with replacement and keeps each drawn
context's questions together. A draw is held as a `resamples x clusters` matrix of counts (how
often each cluster was drawn), and the mean of a draw is the ratio estimator
`sum(counts * cluster sums) / sum(counts * cluster sizes)`. With every question its own cluster
this is the ordinary bootstrap, drawn as `bootstrap_indices` draws it.

- `bootstrap_interval`: the percentile bootstrap interval of a mean (questions resampled with
  replacement), the interval `scipy.stats.bootstrap(..., method="percentile")` gives for the same
  random generator;
- `paired_test`: the difference of two means over the same questions, its paired bootstrap
  interval and the p-value of a two-sided paired approximate randomisation test (each question's
  two scores swapped with probability 1/2; Noreen 1989, Riezler and Maxwell 2005),
  `(hits + 1) / (rounds + 1)`;
- `randomisation_p`, `normal_p`: the p-value of the sign-flip randomisation test of cluster sums,
  by Monte Carlo or by the normal approximation of the same randomisation distribution (mean 0,
  variance `sum(cluster sums ** 2) / n ** 2`), for families too large for Monte Carlo rounds;
- `family_plan`: which of the two a family of `m` tests gets, so that a Holm-corrected p can reach
  a tenth of the level;
- `holm`: Holm-Bonferroni adjusted p-values of a family;
- `tost`: two one-sided tests of equivalence within a margin, from bootstrap draws;
- `range_permutation_test`: the range of group means (the F1 range: best group's F1 minus the
  worst's) and the p of a permutation test of no difference between the groups (the group labels
  shuffled over the questions, group sizes kept), `(hits + 1) / (rounds + 1)`. The range of
  maxima and minima is biased upward under a bootstrap (a resample's best group is often not the
  range's best), so a percentile interval of it can lie above the range itself; the permutation
  null carries the same bias, so the test compares like with like;
- `Resampler`: all of the above over question ids, with the study's clusters (contexts) and
  the seeds of each model, sharing draws between the tests over the same questions.

Identical score vectors give a zero difference, a zero-width interval and p = 1. Every function
is deterministic for a given `seed`.
"""
import math
import zlib
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

# the one definition of each: the level of every test, the confidence of every interval and the
# bootstrap resamples of every interval (captions, commands and the seed tests read them here)
CONFIDENCE = 0.95
LEVEL = 0.05
BOOTSTRAP = 1000
PERMUTATIONS = 10000
MAX_PERMUTATIONS = 50000
SIGN_BLOCK = 256


def bootstrap_indices(size: int, resamples: int, seed: int) -> np.ndarray:
    """A `resamples x size` matrix of question indices drawn with replacement (the draw
    `scipy.stats.bootstrap` makes with `rng=np.random.default_rng(seed)`)."""
    if size < 1:
        raise ValueError(f"need at least one question to resample, got {size}")
    if resamples < 1:
        raise ValueError(f"need at least one resample, got {resamples}")
    return np.random.default_rng(seed).integers(0, size, (resamples, size))


def draw_counts(size: int, resamples: int, seed) -> np.ndarray:
    """A `resamples x size` float matrix: how often each of `size` clusters was drawn in each
    resample of `size` draws with replacement (the counts of `bootstrap_indices`' rows)."""
    indices = bootstrap_indices(size, resamples, seed)
    offsets = indices + size * np.arange(resamples)[:, None]
    return np.bincount(offsets.ravel(), minlength=resamples * size).reshape(resamples, size).astype(np.float64)


def _as_scores(values: Sequence[float], name: str = "scores") -> np.ndarray:
    scores = np.asarray(values, dtype=np.float64)
    if scores.ndim != 1 or scores.size == 0:
        raise ValueError(f"{name} must be a non-empty list of per-question numbers, got shape {scores.shape}")
    return scores


def percentile_interval(statistics: np.ndarray, confidence: float = CONFIDENCE) -> Tuple[float, float]:
    """The `(1 - confidence) / 2` and `(1 + confidence) / 2` quantiles (linear interpolation)."""
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(statistics, [alpha, 1.0 - alpha])
    return float(low), float(high)


def bootstrap_interval(
    values: Sequence[float],
    resamples: int = BOOTSTRAP,
    seed: int = 0,
    confidence: float = CONFIDENCE,
    indices: Optional[np.ndarray] = None,
) -> Tuple[float, float]:
    """
    Percentile bootstrap interval of the mean of `values` (questions resampled one by one).

    # Parameters

    values : `Sequence[float]`
        One score a question.
    resamples : `int`, optional (default = `1000`)
    seed : `int`, optional (default = `0`)
    confidence : `float`, optional (default = `0.95`)
    indices : `np.ndarray`, optional
        A `bootstrap_indices` matrix to use instead of drawing one.
    """
    scores = _as_scores(values)
    if indices is None:
        indices = bootstrap_indices(scores.size, resamples, seed)
    return percentile_interval(scores[indices].mean(axis=1), confidence)


def sign_matrix(rounds: int, columns: int, seed: int) -> np.ndarray:
    """A `rounds x columns` int8 matrix of +1/-1, each with probability 1/2. It is drawn in blocks
    of 256 columns, each block from its own generator, so the first `k` columns are the same
    whatever `columns` is asked for."""
    if rounds < 1:
        raise ValueError(f"need at least one randomisation round, got {rounds}")
    blocks = []
    for block in range(max(1, math.ceil(columns / SIGN_BLOCK))):
        rng = np.random.default_rng([seed, 1, block])
        blocks.append(rng.integers(0, 2, (rounds, SIGN_BLOCK), dtype=np.int8) * 2 - 1)
    return np.concatenate(blocks, axis=1)[:, :columns]


def randomisation_p(cluster_sums: np.ndarray, size: int, signs: np.ndarray) -> float:
    """
    Two-sided p-value of the sign-flip randomisation test of a mean difference: the per-question
    differences summed by cluster (`cluster_sums`, over `size` questions) keep or flip their sign
    together, each with probability 1/2, in each row of `signs` (a `sign_matrix` with at least as
    many columns as clusters that differ). `(hits + 1) / (rounds + 1)`, hits being the rounds
    whose absolute mean reaches the observed one.
    """
    sums = np.asarray(cluster_sums, dtype=np.float64)
    observed = sums.sum() / size
    changed = sums[np.flatnonzero(sums)]  # a cluster without a difference is the same under a flip
    if changed.size == 0:
        return 1.0
    if changed.size > signs.shape[1]:
        raise ValueError(f"the sign matrix has {signs.shape[1]} columns, {changed.size} clusters differ")
    # a tolerance, so that floating-point noise does not decide a tie with the observed value
    threshold = abs(observed) - 1e-9 * max(1.0, abs(observed))
    hits, step = 0, 4096
    for start in range(0, signs.shape[0], step):
        shuffled = signs[start : start + step, : changed.size].astype(np.float64) @ changed / size
        hits += int(np.count_nonzero(np.abs(shuffled) >= threshold))
    return (hits + 1) / (signs.shape[0] + 1)


def normal_p(cluster_sums: np.ndarray, size: int) -> float:
    """Two-sided p-value of the sign-flip randomisation test of a mean difference by the normal
    approximation of its randomisation distribution: mean 0, variance `sum(cluster_sums ** 2) /
    size ** 2` (exact under the flips)."""
    sums = np.asarray(cluster_sums, dtype=np.float64)
    spread = math.sqrt(float(np.sum(sums ** 2))) / size
    if spread == 0.0:
        return 1.0
    return math.erfc(abs(float(sums.sum()) / size) / spread / math.sqrt(2.0))


RANGE_TEST = ("permutation test of no difference between the groups: the group labels shuffled over the questions "
              "(group sizes kept), the range of group means taken in each round")


def range_permutation_test(values: Sequence[float], groups: Sequence[str], rounds: int = PERMUTATIONS,
                           seed: int = 0) -> Dict[str, float]:
    """
    `{"value", "p", "rounds"}`: the range of the group means of `values` (the best group's mean
    minus the worst's) and the p of a one-sided permutation test of no difference between the
    groups: in each round the group labels are shuffled over the values, group sizes kept, and the
    round's range taken; p is `(rounds whose range reaches the observed one + 1) / (rounds + 1)`.

    # Parameters

    values : `Sequence[float]`
        One score per question (a model's F1, its mean over seeds).
    groups : `Sequence[str]`
        The group (country, voice) of each question, at least two groups.
    rounds : `int`, optional (default = `PERMUTATIONS`)
    seed : `int`, optional (default = `0`)
    """
    scores = _as_scores(values, "values")
    if len(groups) != scores.size:
        raise ValueError(f"{len(groups)} group labels for {scores.size} values")
    names, codes = np.unique(np.asarray([str(group) for group in groups]), return_inverse=True)
    if names.size < 2:
        raise ValueError(f"a range needs at least 2 groups, got {names.size}")
    if int(rounds) != rounds or rounds < 1:
        raise ValueError(f"rounds must be a positive whole number, got {rounds!r}")
    sizes = np.bincount(codes, minlength=names.size).astype(float)

    def spread(labels: np.ndarray) -> float:
        means = np.bincount(labels, weights=scores, minlength=names.size) / sizes
        return float(means.max() - means.min())

    observed = spread(codes)
    generator = np.random.default_rng(seed)
    hits = 0
    for _ in range(int(rounds)):
        hits += spread(generator.permutation(codes)) >= observed - 1e-9
    return {"value": observed, "p": (hits + 1) / (int(rounds) + 1), "rounds": int(rounds)}


def family_plan(tests: int, permutations: int = PERMUTATIONS, level: float = LEVEL) -> Tuple[str, int]:
    """
    `(method, rounds)` for a family of `tests` paired tests: `("randomisation", rounds)` with
    `rounds = max(permutations, 10 * tests / level - 1)` so that the smallest Holm-corrected p,
    `tests / (rounds + 1)`, can reach a tenth of `level`; `("normal", 0)` where that would take
    more than 50,000 rounds.
    """
    if permutations < 1:
        raise ValueError(f"--permutations must be at least 1, got {permutations}")
    needed = math.ceil(10 * max(tests, 1) / level) - 1
    rounds = max(permutations, needed)
    if rounds > max(MAX_PERMUTATIONS, permutations):
        return "normal", 0
    return "randomisation", rounds


def holm(p_values: Sequence[Optional[float]]) -> List[Optional[float]]:
    """Holm-Bonferroni adjusted p-values, in the given order: the k-th smallest of m p-values is
    multiplied by `m - k + 1`, kept at least as large as the one before it, and capped at 1.
    None (no test) stays None and does not count in m."""
    present = [(p, i) for i, p in enumerate(p_values) if p is not None]
    adjusted: List[Optional[float]] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(sorted(present)):
        running = max(running, min(1.0, (len(present) - rank) * p))
        adjusted[i] = running
    return adjusted


def tost(draws: np.ndarray, margin: float) -> Dict[str, float]:
    """
    Two one-sided tests (Schuirmann 1987) that a difference lies within `(-margin, margin)`, from
    its bootstrap draws: `p_lower` of the null "difference <= -margin" is the share of draws at or
    below `-margin`, `p_upper` of "difference >= margin" the share at or above it (each as
    `(count + 1) / (draws + 1)`), and the equivalence p is the larger. p < alpha exactly when
    the `1 - 2 alpha` percentile interval lies inside the margins.
    """
    if not margin > 0:
        raise ValueError(f"the equivalence margin must be positive, got {margin}")
    draws = np.asarray(draws, dtype=np.float64)
    total = draws.size + 1
    p_lower = (int(np.count_nonzero(draws <= -margin)) + 1) / total
    p_upper = (int(np.count_nonzero(draws >= margin)) + 1) / total
    return {"p_lower": p_lower, "p_upper": p_upper, "p": max(p_lower, p_upper)}


def paired_test(
    first: Sequence[float],
    second: Sequence[float],
    resamples: int = BOOTSTRAP,
    seed: int = 0,
    confidence: float = CONFIDENCE,
    indices: Optional[np.ndarray] = None,
    permutations: int = PERMUTATIONS,
) -> dict:
    """
    Compare two systems on the same questions (`first[i]` and `second[i]` are the scores of
    question `i`), each question resampled and flipped on its own.

    # Parameters

    first : `Sequence[float]`
    second : `Sequence[float]`
    resamples : `int`, optional (default = `1000`)
        Bootstrap resamples for the interval.
    seed : `int`, optional (default = `0`)
    confidence : `float`, optional (default = `0.95`)
    indices : `np.ndarray`, optional
        A `bootstrap_indices` matrix to use instead of drawing one.
    permutations : `int`, optional (default = `10000`)
        Randomisation rounds for the p-value.

    # Returns

    `{"difference": mean(first) - mean(second), "low", "high": its paired bootstrap interval,
    "p": the approximate randomisation p-value}`.
    """
    a, b = _as_scores(first, "first"), _as_scores(second, "second")
    if a.size != b.size:
        raise ValueError(f"paired scores must cover the same questions: {a.size} against {b.size}")
    delta = a - b
    if indices is None:
        indices = bootstrap_indices(delta.size, resamples, seed)
    low, high = percentile_interval(delta[indices].mean(axis=1), confidence)
    changed = int(np.count_nonzero(delta))
    p = randomisation_p(delta, delta.size, sign_matrix(permutations, changed, seed)) if changed else 1.0
    return {"difference": float(delta.mean()), "low": low, "high": high, "p": p}


class Resampler:
    """
    Intervals and tests over question ids that share their draws: one count matrix per set of
    clusters, so that every pair (and every difference) over the same questions uses the same
    resamples, and each is drawn once.

    Several seeds: a model's scores may be a `seeds x questions` matrix (one row per trained
    seed). Each resample then also draws the model's seeds with replacement (one draw per model,
    shared by all its sets, so its drops stay paired by seed) and averages, over the drawn seeds,
    the cluster-resampled mean: the interval carries the variance between seeds as well as between
    questions. Two models' seeds are drawn independently. The randomisation tests flip the
    seed-averaged per-question differences: their p-values are conditional on the trained seeds.

    # Parameters

    resamples : `int`, optional (default = `1000`)
    seed : `int`, optional (default = `0`)
    confidence : `float`, optional (default = `0.95`)
    clusters : `Mapping[str, str]`, optional
        The cluster (context) of each question id; an id it lacks is a cluster of its own. None:
        every question is its own cluster (the questions are resampled one by one).
    permutations : `int`, optional (default = `10000`)
        Randomisation rounds of a test, unless the test names its own.
    """

    def __init__(
        self,
        resamples: int = BOOTSTRAP,
        seed: int = 0,
        confidence: float = CONFIDENCE,
        clusters: Optional[Mapping[str, str]] = None,
        permutations: int = PERMUTATIONS,
    ) -> None:
        if resamples < 1:
            raise ValueError(f"need at least one resample, got {resamples}")
        if permutations < 1:
            raise ValueError(f"need at least one randomisation round, got {permutations}")
        self.resamples, self.seed, self.confidence = resamples, seed, confidence
        self.clusters = clusters
        self.permutations = permutations
        self._counts: Dict[tuple, np.ndarray] = {}
        self._seed_counts: Dict[Tuple[str, int], np.ndarray] = {}
        self._signs: Dict[int, np.ndarray] = {}

    def layout(self, ids: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
        """`(codes, counts)`: the column of each id's cluster, and the `resamples x clusters`
        draw counts of those clusters (clusters in sorted order of their labels)."""
        if len(ids) == 0:
            raise ValueError("need at least one question to resample, got 0")
        if self.clusters is None:
            labels = list(ids)
        else:
            labels = [self.clusters.get(qid, "\0" + qid) for qid in ids]
        unique, codes = np.unique(np.asarray(labels, dtype=object), return_inverse=True)
        key = tuple(unique)
        if key not in self._counts:
            self._counts[key] = draw_counts(len(unique), self.resamples, self.seed)
        return codes.reshape(-1), self._counts[key]

    def seed_counts(self, model: Optional[str], seeds: int) -> np.ndarray:
        """`resamples x seeds` draw counts of a model's seeds (all ones for one seed)."""
        if seeds == 1:
            return np.ones((self.resamples, 1))
        key = (model or "", seeds)
        if key not in self._seed_counts:
            self._seed_counts[key] = draw_counts(seeds, self.resamples, [self.seed, 2, zlib.crc32(key[0].encode())])
        return self._seed_counts[key]

    def means(self, ids: Sequence[str], values, model: Optional[str] = None, members=None) -> np.ndarray:
        """The mean of `values` (one score a question, or `seeds x questions`) in each resample.
        `members` (a boolean per question) restricts the mean to some of the questions, drawn by
        the same resamples as all of `ids` (a group's mean within each resample of the whole set);
        a resample that draws none of them gives NaN."""
        matrix = np.atleast_2d(np.asarray(values, dtype=np.float64))
        if matrix.shape[1] != len(ids):
            raise ValueError(f"{matrix.shape[1]} scores for {len(ids)} question ids")
        codes, counts = self.layout(ids)
        columns = counts.shape[1]
        weights = None if members is None else np.asarray(members, dtype=np.float64)
        if weights is not None and weights.shape != (len(ids),):
            raise ValueError(f"{weights.shape} members for {len(ids)} question ids")
        sizes = np.bincount(codes, weights=weights, minlength=columns)
        sums = np.stack([np.bincount(codes, weights=row if weights is None else row * weights, minlength=columns)
                         for row in matrix])
        if sums.shape[0] == 1:
            totals = counts @ sums[0]
        else:
            mixed = self.seed_counts(model, sums.shape[0]) @ sums / sums.shape[0]
            totals = np.einsum("rc,rc->r", counts, mixed)
        if weights is None:
            return totals / (counts @ sizes)
        drawn = counts @ sizes
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(drawn > 0, totals / np.where(drawn > 0, drawn, 1.0), np.nan)

    def interval(self, ids: Sequence[str], values, model: Optional[str] = None) -> Tuple[float, float]:
        return percentile_interval(self.means(ids, values, model), self.confidence)

    def signs(self, rounds: int, columns: int) -> np.ndarray:
        """The first `columns` columns of this seed's `sign_matrix` of `rounds` rows."""
        held = self._signs.get(rounds)
        if held is None or held.shape[1] < columns:
            width = max(columns, 0 if held is None else held.shape[1])
            held = self._signs[rounds] = sign_matrix(rounds, math.ceil(max(width, 1) / SIGN_BLOCK) * SIGN_BLOCK, self.seed)
        return held[:, :columns]

    def test(
        self,
        ids: Sequence[str],
        first,
        second,
        first_model: Optional[str] = None,
        second_model: Optional[str] = None,
        method: str = "randomisation",
        rounds: Optional[int] = None,
    ) -> dict:
        """
        `first` against `second` over the questions `ids` (each one score a question, or `seeds x
        questions`).

        # Returns

        `{"difference", "low", "high", "p"}` and `"draws"`, the difference in each resample
        (dropped before it is stored). `method` is `randomisation` (with `rounds`, default
        `permutations`) or `normal`; a cluster's questions are flipped together.
        """
        a = np.atleast_2d(np.asarray(first, dtype=np.float64))
        b = np.atleast_2d(np.asarray(second, dtype=np.float64))
        if a.shape[1] != b.shape[1]:
            raise ValueError(f"paired scores must cover the same questions: {a.shape[1]} against {b.shape[1]}")
        draws = self.means(ids, a, first_model) - self.means(ids, b, second_model)
        low, high = percentile_interval(draws, self.confidence)
        delta = a.mean(axis=0) - b.mean(axis=0)
        codes, _ = self.layout(ids)
        sums = np.bincount(codes, weights=delta, minlength=int(codes.max()) + 1)
        if method == "normal":
            p = normal_p(sums, delta.size)
        elif method == "randomisation":
            rounds = rounds or self.permutations
            p = randomisation_p(sums, delta.size, self.signs(rounds, int(np.count_nonzero(sums))))
        else:
            raise ValueError(f"method must be randomisation or normal, got {method!r}")
        return {"difference": float(delta.mean()), "low": low, "high": high, "p": p, "draws": draws}
