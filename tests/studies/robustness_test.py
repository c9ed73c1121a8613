import pytest

from srcframework.studies.robustness import robustness
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
