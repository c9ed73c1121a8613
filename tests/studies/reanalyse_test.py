"""The declared re-analysis of a committed results.json: it adds, never changes, and the committed
robust-training results are what it writes."""
import copy
import json
import shutil

import pytest

from srcframework.studies.reanalyse import main, reanalyse
from tests.conftest import ROOT

RECIPE = ROOT / "recipes" / "robust_training"
COMMAND = ["recipes/robust_training/results.json", "--study", "recipes/robust_training/study.jsonnet",
           "--reduction", "30"]


def strip(results: dict) -> dict:
    """The results as the study wrote them, before the re-analysis."""
    results = copy.deepcopy(results)
    for key in ("power", "reanalysis"):
        results.pop(key)
    results["statistics"].pop("seed_inference")
    for row in results["robustness"]:
        row.pop("set_groups")
        for group in row["groups"]:
            group.pop("by_set")
            group.pop("seed_test", None)
        row["clean"].pop("seed_test", None)
        row["clean"].pop("seed_tost", None)
    return results


@pytest.mark.slow
def test_the_committed_results_are_what_the_declared_reanalysis_writes(tmp_path, monkeypatch):
    committed = json.loads((RECIPE / "results.json").read_text())
    assert committed["reanalysis"]["command"] == "python -m srcframework.studies.reanalyse " + " ".join(COMMAND)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "recipes").mkdir()
    shutil.copytree(RECIPE, tmp_path / "recipes" / "robust_training")
    shutil.copy(RECIPE.parent / "recipe.libsonnet", tmp_path / "recipes")  # what the study and recipe.jsonnet import
    (tmp_path / "training_configs" / "lib").mkdir(parents=True)
    shutil.copy(ROOT / "training_configs" / "lib" / "noisy_copies.libsonnet", tmp_path / "training_configs" / "lib")
    path = tmp_path / "recipes" / "robust_training" / "results.json"
    path.write_text(json.dumps(strip(committed), indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    assert main(COMMAND) == 0
    assert path.read_text() == (RECIPE / "results.json").read_text()
    assert main(COMMAND) == 0 and path.read_text() == (RECIPE / "results.json").read_text()  # again: the same


def test_it_adds_the_corrections_figures_and_says_what_it_could_not_compute():
    results = json.loads((RECIPE / "results.json").read_text())
    row = results["robustness"][0]
    groups = {g["group"]: g for g in row["set_groups"]}
    assert list(groups) == ["unseen_generator", "same_family", "all_sets"]
    assert groups["unseen_generator"]["drop_difference"] == pytest.approx(0.92, abs=0.01)
    assert groups["same_family"]["drop_difference"] == pytest.approx(5.88, abs=0.01)
    assert groups["all_sets"]["drop_difference"] == pytest.approx(row["groups"][-1]["drop_difference"])
    primary = row["groups"][0]["seed_test"]
    assert (round(primary["low"], 1), round(primary["high"], 1)) == (-0.6, 8.1)
    assert "predictions.jsonl" in results["reanalysis"]["not_computed"]
    assert all("drop_test" not in g and "variance_components" not in g for g in row["set_groups"])


@pytest.mark.slow
def test_a_changed_figure_would_be_refused(monkeypatch):
    from srcframework.studies import reanalyse as module

    results = strip(json.loads((RECIPE / "results.json").read_text()))
    original = copy.deepcopy(results)
    reanalyse(results, [], None, "test")
    assert results["robustness"][0]["drop_difference"] == original["robustness"][0]["drop_difference"]
    assert "set_groups" not in results["robustness"][0] and results["power"]["entries"]

    def meddle(found):
        found["robustness"][0]["drop_difference"] += 1.0

    monkeypatch.setattr(module, "add_by_set", meddle)
    with pytest.raises(AssertionError, match=r"results.robustness\[0\].drop_difference changed"):
        reanalyse(copy.deepcopy(original), [], None, "test")


def test_a_bad_study_is_one_line(tmp_path, capsys):
    assert main([str(RECIPE / "results.json"), "--study", str(tmp_path / "none.jsonnet")]) == 1
    assert capsys.readouterr().err.count("\n") == 1
