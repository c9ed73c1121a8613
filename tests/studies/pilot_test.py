import json
import math

import pytest

from srcframework.common.errors import InputError
from srcframework.metrics.power import tost_power
from srcframework.studies.pilot import add_retrospective_power, pilot_figures, power_entry
from tests.conftest import ROOT

COMMITTED = ROOT / "recipes" / "robust_training" / "results.json"


def committed() -> dict:
    return json.loads(COMMITTED.read_text())


def test_the_clean_f1_of_each_seed_and_its_spread():
    figures = pilot_figures(committed())
    assert (figures.model, figures.twin, figures.outcome) == ("bidaf_augmented", "bidaf_clean", "clean_f1")
    assert figures.model_seeds == pytest.approx([52.28, 50.44, 49.26], abs=0.01)
    assert figures.sd("independent") == pytest.approx(1.52, abs=0.01)  # about 1.5 in both arms
    assert figures.sd("paired") == pytest.approx(1.91, abs=0.01)
    assert figures.differences == pytest.approx([1.53, 2.43, -1.24], abs=0.01)


def with_random_seeds(mine, theirs) -> dict:
    results = committed()
    for model in results["models"]:
        if model["name"] in ("bidaf_augmented", "bidaf_clean"):
            model["random_seeds"] = mine if model["name"] == "bidaf_augmented" else theirs
    return results


def test_seed_pairs_follow_the_random_seeds_not_the_order():
    # the augmented twin's archives listed as seeds 3, 1, 2: its seed-3 figure pairs with the twin's third
    figures = pilot_figures(with_random_seeds([3, 1, 2], [1, 2, 3]))
    assert figures.model_seeds == pytest.approx([50.44, 49.26, 52.28], abs=0.01)
    assert figures.differences == pytest.approx([50.44 - 50.75, 49.26 - 48.01, 52.28 - 50.50], abs=0.01)
    assert figures.sd("independent") == pytest.approx(1.52, abs=0.01)  # the arms' spreads do not depend on pairing


def test_arms_of_other_seeds_have_no_paired_design():
    figures = pilot_figures(with_random_seeds([1, 2, 4], [1, 2, 3]))
    assert figures.differences is None
    with pytest.raises(InputError, match="trained with other seeds: no seed pairs"):
        figures.sd("paired")
    assert list(power_entry(figures, margin=1.5)["designs"]) == ["independent"]


def test_a_drop_difference_of_a_group():
    figures = pilot_figures(committed(), "drop_difference", "bidaf_augmented", "held_out")
    assert figures.label == "drop difference (held_out)"
    assert [t - m for m, t in zip(figures.model_seeds, figures.twin_seeds)] == pytest.approx(figures.differences)
    unseen = pilot_figures(committed(), "drop_difference", group="unseen_generator")
    assert len(unseen.model_seeds) == 3


def test_the_power_entry_answers_for_both_designs():
    entry = power_entry(pilot_figures(committed()), margin=1.5)
    independent, paired = entry["designs"]["independent"], entry["designs"]["paired"]
    assert independent["seeds_needed"] == 19 and paired["seeds_needed"] == 16
    assert entry["planned_seeds"] == 3 and independent["planned_power"] < 0.05
    assert tost_power(3, independent["sd"], independent["planned_detects"]) == pytest.approx(0.8, abs=0.01)
    planned = power_entry(pilot_figures(committed()), margin=1.5, seeds=19)
    assert planned["designs"]["independent"]["planned_power"] >= 0.8
    effect = power_entry(pilot_figures(committed(), "drop_difference"), effect=2.5)
    assert effect["test"] == "difference" and effect["designs"]["independent"]["seeds_needed"] >= 3


@pytest.mark.parametrize("call, message", [
    (lambda r: pilot_figures(r, "clean_f1", "minilm_augmented"), "need at least 2 seeds each .* has 1 and 1"),
    (lambda r: pilot_figures(r, "clean_f1", "nobody"), "no robustness row of model 'nobody'"),
    (lambda r: pilot_figures(r, "drop_difference", group="typos"), "has no group 'typos'"),
    (lambda r: pilot_figures(r, "accuracy"), "the outcome is one of clean_f1, drop_difference"),
    (lambda r: power_entry(pilot_figures(r), margin=1.5, effect=1.0), "one of the two"),
    (lambda r: power_entry(pilot_figures(r), margin=-1.0), "margin must be a positive"),
    (lambda r: power_entry(pilot_figures(r), margin=1.0, seeds=1), "at least 2"),
    (lambda r: pilot_figures({"robustness": []}), "no robustness rows"),
])
def test_bad_requests_are_one_line_errors(call, message):
    with pytest.raises(InputError, match=message):
        call(committed())


def test_retrospective_power_is_labelled_and_leaves_one_seed_rows_out():
    results = committed()
    entries = add_retrospective_power(results, reduction=30)
    assert results["power"]["retrospective"] is True
    assert {e["model"] for e in entries} == {"bidaf_augmented"}
    clean = entries[0]
    assert clean["outcome"] == "clean_f1" and clean["margin"] == 1.5
    groups = [e["group"] for e in entries[1:]]
    assert groups == ["held_out", "unseen_generator", "same_family", "all_sets"]
    held = entries[1]
    row = results["robustness"][0]
    assert held["effect"] == pytest.approx(0.3 * row["groups"][0]["twin_mean_drop"]) and held["reduction"] == 30
    assert math.isclose(results["power"]["entries"][0]["sd_model"], 1.5233, abs_tol=1e-3)
