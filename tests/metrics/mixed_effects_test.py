import numpy as np
import pytest

from srcframework.common.errors import InputError
from srcframework.metrics.mixed_effects import seed_question_components


def simulated(seeds=4, paragraphs=120, seed_sd=2.0, paragraph_sd=3.0, question_sd=6.0, noise_sd=8.0, rng=0):
    """`seeds x questions` differences with known variance components, and each question's paragraph."""
    rng = np.random.default_rng(rng)
    sizes = rng.integers(3, 7, paragraphs)
    labels = np.repeat([f"p{i}" for i in range(paragraphs)], sizes)
    questions = labels.size
    per_paragraph = dict(zip(np.unique(labels), rng.normal(0, paragraph_sd, paragraphs)))
    fixed = 2.0 + np.array([per_paragraph[label] for label in labels]) + rng.normal(0, question_sd, questions)
    values = np.stack([fixed + rng.normal(0, seed_sd) + rng.normal(0, noise_sd, questions) for _ in range(seeds)])
    return values, list(labels)


def test_recovers_the_question_level_components_and_splits_the_variance():
    values, labels = simulated()
    found = seed_question_components(values, labels)
    parts = found["components"]
    assert found["converged"] and found["seeds"] == 4 and found["paragraphs"] == 120
    assert parts["seed_question"] == pytest.approx(64, rel=0.15)
    assert parts["question"] == pytest.approx(36, rel=0.35)
    assert found["estimate"] == pytest.approx(values.mean())
    assert found["share_seeds"] + found["share_questions"] == pytest.approx(1.0)
    assert found["low"] < found["estimate"] < found["high"]
    # what the runs contribute is what a seed-paired t-test over the seed means sees
    runs = found["variance_parts"]["seed"] + found["variance_parts"]["seed_question"]
    assert runs == pytest.approx(max(np.var(values.mean(axis=1), ddof=1), parts["seed_question"] / values.shape[1])
                                 / values.shape[0])


def test_seeds_dominate_when_runs_differ_much_more_than_questions():
    values, labels = simulated(seeds=3, seed_sd=6.0, paragraph_sd=0.5, question_sd=1.0, noise_sd=2.0, rng=3)
    found = seed_question_components(values, labels)
    assert found["share_seeds"] > 0.8
    # few seeds: the interval is far wider than a question-level one would be
    assert found["df"] < 10 and found["high"] - found["low"] > 4


def test_without_paragraphs_each_question_is_its_own():
    values, _ = simulated(seeds=2, paragraphs=40)
    found = seed_question_components(values)
    assert found["components"]["question"] is None and found["paragraphs"] == values.shape[1]


@pytest.mark.parametrize("values, message", [
    (np.ones((1, 10)), "at least 2 seeds"),
    (np.ones((2, 1)), "at least 2 questions"),
])
def test_too_little_data_is_a_one_line_error(values, message):
    with pytest.raises(InputError, match=message):
        seed_question_components(values)
    with pytest.raises(InputError, match="3 paragraphs for 10 questions"):
        seed_question_components(np.ones((2, 10)), ["a", "b", "c"])


def test_differences_that_never_vary_give_a_zero_width_interval_without_infinities():
    found = seed_question_components(np.zeros((2, 40)), [f"p{i // 4}" for i in range(40)])
    assert found["low"] == found["high"] == found["estimate"] == 0.0
    assert found["df"] is None and found["share_seeds"] is None
