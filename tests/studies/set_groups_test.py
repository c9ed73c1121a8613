import json

import pytest

from srcframework.common.errors import InputError
from srcframework.studies.set_groups import add_by_set, declared_groups, group_figures
from srcframework.studies.study import StudyError, study_from_dict
from tests.conftest import ROOT

COMMITTED = ROOT / "recipes" / "robust_training" / "results.json"


def committed() -> dict:
    return json.loads(COMMITTED.read_text())


def test_a_generator_group_is_reproduced_from_the_pairs_per_seed_drops():
    """The robustness row's groups were computed from per-question scores at the study's run;
    the same figures come back from the pairs' per-seed drops (every set holds the same questions)."""
    results = committed()
    for row in results["robustness"]:
        for group in row["groups"]:
            found = group_figures(results, row["model"], row["twin"], group["noisy_sets"])
            assert found["drop_difference"] == pytest.approx(group["drop_difference"], abs=1e-9)
            assert found["mean_drop"] == pytest.approx(group["mean_drop"], abs=1e-9)
            assert found["drop_reduction"] == pytest.approx(group["drop_reduction"], abs=1e-9)
            if "seeds" in group:
                assert [s["mean_drop"] for s in found["seeds"]] == pytest.approx(
                    [s["mean_drop"] for s in group["seeds"]], abs=1e-9)


def test_the_keyboard_set_carries_most_of_the_protocols_primary_figure():
    results = committed()
    held = group_figures(results, "bidaf_augmented", "bidaf_clean",
                         ["noiseqa_asr", "noiseqa_keyboard", "noiseqa_translation"])
    shares = {entry["set"]: entry["share"] for entry in held["by_set"]}
    assert shares["noiseqa_keyboard"] == pytest.approx(0.84, abs=0.01)
    assert sum(entry["difference"] for entry in held["by_set"]) == pytest.approx(3 * held["drop_difference"])
    unseen = group_figures(results, "bidaf_augmented", "bidaf_clean", ["noiseqa_asr", "noiseqa_translation"])
    assert unseen["drop_difference"] == pytest.approx(0.9, abs=0.05)
    assert 23 <= unseen["drop_reduction"] <= 25  # the 23-25%, below the bar's 30%
    assert len(unseen["seeds"]) == 3 and len(unseen["by_set"][0]["seed_differences"]) == 3


def test_groups_over_other_questions_or_without_a_drop_are_refused():
    results = committed()
    pair = next(p for p in results["pairs"] if p["model"] == "bidaf_clean" and p["set"] == "noiseqa_asr")
    pair["questions"] = 1000
    with pytest.raises(InputError, match="do not all hold the same questions"):
        group_figures(results, "bidaf_augmented", "bidaf_clean", ["noiseqa_asr", "noiseqa_keyboard"])
    with pytest.raises(InputError, match="has no drop"):
        group_figures(results, "bidaf_augmented", "bidaf_clean", ["clean"])
    with pytest.raises(InputError, match="no pair of model 'bidaf_augmented' on test set 'nowhere'"):
        group_figures(results, "bidaf_augmented", "bidaf_clean", ["nowhere"])


def test_declared_groups_go_to_every_row_that_ran_their_sets_and_keep_computed_ones():
    results = committed()
    for row in results["robustness"]:
        row.pop("set_groups", None)
    row = results["robustness"][0]
    row["set_groups"] = [{"group": "kept", "noisy_sets": ["spoken_rms"], "drop_test": {"p": 0.5}}]
    declared_groups(results, [{"name": "kept", "sets": ["spoken_rms"], "label": "k", "declared": None},
                              {"name": "speech", "sets": ["noiseqa_asr", "spoken_rms"], "label": "speech",
                               "declared": "later"},
                              {"name": "absent", "sets": ["nowhere"], "label": "x", "declared": None}])
    assert [g["group"] for g in row["set_groups"]] == ["kept", "speech"]
    assert row["set_groups"][0] == {"group": "kept", "noisy_sets": ["spoken_rms"], "drop_test": {"p": 0.5}}
    assert row["set_groups"][1]["label"] == "speech" and row["set_groups"][1]["declared"] == "later"
    other = results["robustness"][1]["set_groups"]  # a row without the group gets it from the pairs
    assert [g["group"] for g in other] == ["kept", "speech"] and other[0]["drop_difference"] is not None
    for group in results["robustness"][0]["groups"]:
        group.pop("by_set", None)
    add_by_set(results)
    assert all("by_set" in group for group in results["robustness"][0]["groups"])


RAW = {
    "models": {"plain": {"archive": "a.tar.gz"}, "robust": {"archive": "b.tar.gz", "twin": "plain"}},
    "test_sets": {"clean": {"data": "c.json", "interface": "clean", "kind": "natural"},
                  "asr": {"data": "a.json", "interface": "asr", "kind": "synthetic", "generator": "asr"},
                  "typo": {"data": "t.json", "interface": "keyboard", "kind": "synthetic"}},
}


def test_the_study_key_keeps_a_lists_order_and_checks_its_sets():
    study = study_from_dict(dict(RAW, set_groups=[{"name": "z", "sets": ["typo"], "declared": "2026-12-02"},
                                                  {"name": "a", "sets": ["asr", "typo"], "label": "both"}]),
                            "s.json", require_files=False)
    assert [(g.name, g.sets, g.label, g.declared) for g in study.set_groups] == [
        ("z", ("typo",), "z", "2026-12-02"), ("a", ("asr", "typo"), "both", None)]
    assert study_from_dict(dict(RAW, set_groups={"b": {"sets": ["asr"]}}), "s.json", require_files=False).set_groups[0].name == "b"


@pytest.mark.parametrize("groups, message", [
    ({"g": {"sets": ["clean"]}}, r"set_groups.g.sets\[0\]: 'clean' is a clean set"),
    ({"g": {"sets": ["nowhere"]}}, r"set_groups.g.sets\[0\]: no test set named 'nowhere'"),
    ({"g": {"label": "x"}}, "set_groups.g.sets: required"),
    ({"g": {"sets": ["asr"], "colour": 1}}, "set_groups.g.colour: unknown key"),
    ([{"sets": ["asr"]}], r"set_groups\[0\].name: expected a non-empty string"),
    ([{"name": "g", "sets": ["asr"]}, {"name": "g", "sets": ["typo"]}], "set_groups.g: a second group of this name"),
])
def test_a_bad_group_names_the_key(groups, message):
    with pytest.raises(StudyError, match=message):
        study_from_dict(dict(RAW, set_groups=groups), "s.json", require_files=False)
