"""Bootstrap intervals and paired significance tests over per-question scores, vectorised with
numpy: one `resamples x questions` index matrix (or sign matrix) a call, no Python loop over
resamples.

- `bootstrap_interval`: the percentile bootstrap interval of a mean (questions resampled with
  replacement), the interval `scipy.stats.bootstrap(..., method="percentile")` gives for the same
  random generator;
- `paired_test`: the difference of two means over the same questions (scores given in the same
  question order), its paired bootstrap interval (the same resampled questions on both sides) and
  the p-value of a two-sided paired approximate randomisation test (each question's two scores
  swapped with probability 1/2; Noreen 1989, Riezler and Maxwell 2005), `(hits + 1) / (trials + 1)`.

Identical score vectors give a zero difference, a zero-width interval and p = 1. Every function
is deterministic for a given `seed`.
"""
from typing import Optional, Sequence, Tuple

import numpy as np

CONFIDENCE = 0.95


def bootstrap_indices(size: int, resamples: int, seed: int) -> np.ndarray:
    """A `resamples x size` matrix of question indices drawn with replacement (the draw
    `scipy.stats.bootstrap` makes with `rng=np.random.default_rng(seed)`)."""
    if size < 1:
        raise ValueError(f"need at least one question to resample, got {size}")
    if resamples < 1:
        raise ValueError(f"need at least one resample, got {resamples}")
    return np.random.default_rng(seed).integers(0, size, (resamples, size))


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
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = CONFIDENCE,
    indices: Optional[np.ndarray] = None,
) -> Tuple[float, float]:
    """
    Percentile bootstrap interval of the mean of `values`.

    # Parameters

    values : `Sequence[float]`
        One score a question.
    resamples : `int`, optional (default = `1000`)
    seed : `int`, optional (default = `0`)
    confidence : `float`, optional (default = `0.95`)
    indices : `np.ndarray`, optional
        A `bootstrap_indices` matrix to use instead of drawing one (shared by the pairs of a study
        that score the same questions, so their intervals use the same resamples).
    """
    scores = _as_scores(values)
    if indices is None:
        indices = bootstrap_indices(scores.size, resamples, seed)
    return percentile_interval(scores[indices].mean(axis=1), confidence)


def _signs(size: int, trials: int, seed: int) -> np.ndarray:
    """A `trials x size` matrix of +1/-1, each with probability 1/2 (seeded apart from the
    bootstrap draw)."""
    rng = np.random.default_rng([seed, 1])
    return rng.integers(0, 2, (trials, size), dtype=np.int8) * 2 - 1


def paired_test(
    first: Sequence[float],
    second: Sequence[float],
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = CONFIDENCE,
    indices: Optional[np.ndarray] = None,
) -> dict:
    """
    Compare two systems on the same questions: `first[i]` and `second[i]` are the scores of
    question `i`.

    # Parameters

    first : `Sequence[float]`
    second : `Sequence[float]`
    resamples : `int`, optional (default = `1000`)
        Bootstrap resamples for the interval, and randomisation trials for the p-value.
    seed : `int`, optional (default = `0`)
    confidence : `float`, optional (default = `0.95`)
    indices : `np.ndarray`, optional
        A `bootstrap_indices` matrix to use instead of drawing one.

    # Returns

    `{"difference": mean(first) - mean(second), "low", "high": its paired bootstrap interval,
    "p": the approximate randomisation p-value}`.
    """
    a, b = _as_scores(first, "first"), _as_scores(second, "second")
    if a.size != b.size:
        raise ValueError(f"paired scores must cover the same questions: {a.size} against {b.size}")
    delta = a - b
    observed = float(delta.mean())
    if indices is None:
        indices = bootstrap_indices(delta.size, resamples, seed)
    low, high = percentile_interval(delta[indices].mean(axis=1), confidence)
    changed = np.flatnonzero(delta)  # a question with equal scores is the same under a swap
    if changed.size == 0:
        p = 1.0
    else:
        trials = indices.shape[0]
        shuffled = _signs(changed.size, trials, seed) @ delta[changed] / delta.size
        # a tolerance, so that floating-point noise does not decide a tie with the observed value
        hits = int(np.count_nonzero(np.abs(shuffled) >= abs(observed) - 1e-12))
        p = (hits + 1) / (trials + 1)
    return {"difference": observed, "low": low, "high": high, "p": p}


class Resampler:
    """
    Intervals and tests that share their draws: one index matrix per number of questions, so that
    every pair (and every difference) over the same questions uses the same resamples, and each
    matrix is drawn once.

    # Parameters

    resamples : `int`, optional (default = `1000`)
    seed : `int`, optional (default = `0`)
    confidence : `float`, optional (default = `0.95`)
    """

    def __init__(self, resamples: int = 1000, seed: int = 0, confidence: float = CONFIDENCE) -> None:
        if resamples < 1:
            raise ValueError(f"need at least one resample, got {resamples}")
        self.resamples, self.seed, self.confidence = resamples, seed, confidence
        self._indices: dict = {}

    def indices(self, size: int) -> np.ndarray:
        if size not in self._indices:
            self._indices[size] = bootstrap_indices(size, self.resamples, self.seed)
        return self._indices[size]

    def interval(self, values: Sequence[float]) -> Tuple[float, float]:
        scores = _as_scores(values)
        return bootstrap_interval(scores, confidence=self.confidence, indices=self.indices(scores.size))

    def test(self, first: Sequence[float], second: Sequence[float]) -> dict:
        size = len(first)
        return paired_test(first, second, seed=self.seed, confidence=self.confidence, indices=self.indices(size))
