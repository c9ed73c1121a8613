import numpy as np
import pytest

from srcframework.metrics.statistics import Resampler
from srcframework.studies.question_scores import PairScores
from srcframework.studies.robustness import reduction_interval, robustness
from srcframework.studies.study import StudyError, study_from_dict
from srcframework.studies.tables import results_markdown
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "squad_tiny.json")


def pair(model, test_set, f1, clean_f1=None):
    reference = None if clean_f1 is None else "clean"
    return {"model": model, "set": test_set, "interface": "x", "kind": "synthetic", "questions": 10, "em": f1,
            "f1": f1, "reference": reference, "em_drop": None if clean_f1 is None else clean_f1 - f1,
            "f1_drop": None if clean_f1 is None else clean_f1 - f1}


def results():
    pairs = [pair("plain", "clean", 60.0), pair("plain", "asr", 50.0, 60.0), pair("plain", "typo", 40.0, 60.0),
             pair("robust", "clean", 59.0), pair("robust", "asr", 55.0, 59.0), pair("robust", "typo", 49.0, 59.0)]
    models = [{"name": "plain", "twin": None}, {"name": "robust", "twin": "plain"}]
    return {"study": "s", "models": models, "test_sets": [], "pairs": pairs}


def test_mean_drop_reduction_and_clean_change():
    [row] = robustness(results())
    assert row["noisy_sets"] == ["asr", "typo"]
    assert row["mean_drop"] == pytest.approx(7.0) and row["twin_mean_drop"] == pytest.approx(15.0)
    assert row["drop_reduction"] == pytest.approx(100 * 8 / 15)
    assert row["clean_f1_change"] == pytest.approx(-1.0)


def test_table_shows_the_row_and_no_twin_means_no_table():
    data = results()
    data["robustness"] = robustness(data)
    text = results_markdown(data)
    assert "Robust training against the clean-trained twin" in text and "| robust | plain | 2 | 7.0 | 15.0 | 53.3 | -1.0 |" in text
    data["models"][1]["twin"] = None
    data["robustness"] = robustness(data)
    assert data["robustness"] == [] and "clean-trained twin" not in results_markdown(data)


def scores_for(data, rng, size=200):
    """Per-question F1 (0 or 100) whose means are each pair's F1, over the same ids."""
    ids = [f"q{i:03d}" for i in range(size)]
    scores = {}
    for p in data["pairs"]:
        f1 = np.zeros(size)
        f1[rng.permutation(size)[: round(size * p["f1"] / 100)]] = 100.0
        scores[(p["model"], p["set"])] = PairScores(p["model"], p["set"], ids, f1.copy(), f1, {})
    return scores


def test_the_reduction_interval_covers_the_estimate_and_narrows_with_more_questions():
    data = results()
    [row] = robustness(data)
    widths = []
    for size in (200, 2000):
        scores = scores_for(data, np.random.default_rng(0), size)
        interval = reduction_interval(data, row, scores, Resampler(500, seed=1))
        low, high = interval["drop_reduction_low"], interval["drop_reduction_high"]
        assert low < row["drop_reduction"] < high
        widths.append(high - low)
    assert widths[1] < widths[0] / 2
    data["robustness"] = [dict(row, drop_reduction_low=40.0, drop_reduction_high=65.0)]
    assert "| robust | plain | 2 | 7.0 | 15.0 | 53.3 [40.0, 65.0] | -1.0 |" in results_markdown(data)


def test_no_interval_without_shared_questions_or_a_positive_twin_drop():
    data = results()
    [row] = robustness(data)
    scores = scores_for(data, np.random.default_rng(0))
    moved = scores[("plain", "asr")]
    scores[("plain", "asr")] = PairScores("plain", "asr", [f"x{i}" for i in moved.ids], moved.em, moved.f1, {})
    assert reduction_interval(data, row, scores, Resampler(100)) == {"drop_reduction_low": None, "drop_reduction_high": None}
    level = results()
    for p in level["pairs"]:
        if p["model"] == "plain":
            p["f1"] = 60.0
    scores = scores_for(level, np.random.default_rng(0))
    assert reduction_interval(level, row, scores, Resampler(100))["drop_reduction_low"] is None


def test_a_twin_must_name_another_model():
    raw = {"models": {"a": {"archive": TINY, "twin": "b"}, "b": {"archive": TINY}},
           "test_sets": {"clean": {"data": TINY, "interface": "clean", "kind": "natural"}}}
    assert study_from_dict(raw, "s.jsonnet").models["a"].twin == "b"
    raw["models"]["a"]["twin"] = "missing"
    with pytest.raises(StudyError, match="models.a.twin"):
        study_from_dict(raw, "s.jsonnet")
    raw["models"]["a"]["twin"] = "a"
    with pytest.raises(StudyError, match="another model"):
        study_from_dict(raw, "s.jsonnet")
