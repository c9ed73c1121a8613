"""Inference over training runs in a study: seed-paired tests from each seed's figures, and the
seed and question variance components from the per-question scores."""
import copy
import json
import shutil

import numpy as np
import pytest
from scipy import stats

from srcframework.common.errors import InputError
from srcframework.jobs.challenge_set import make_challenge_set
from srcframework.metrics.statistics import Resampler
from srcframework.studies.robustness import declared_robustness, robustness
from srcframework.studies.runner import run_study
from srcframework.studies.seed_inference import add_seed_inference
from srcframework.studies.study import study_from_dict
from tests.conftest import FIXTURES
from tests.studies.robustness_test import CONTEXTS, make_scores, results

TINY = str(FIXTURES / "squad_tiny.json")


def row_with_seeds(mine, theirs, clean_mine, clean_theirs):
    return {
        "model": "robust", "twin": "plain", "primary": "held_out",
        "groups": [{"group": "held_out", "noisy_sets": ["asr"],
                    "seeds": [{"seed": i, "mean_drop": x} for i, x in enumerate(mine)],
                    "twin_seeds": [{"seed": i, "mean_drop": x} for i, x in enumerate(theirs)]}],
        "clean": {"set": "clean", "margin": 1.5, "seeds": [{"seed": i, "f1": x} for i, x in enumerate(clean_mine)],
                  "twin_seeds": [{"seed": i, "f1": x} for i, x in enumerate(clean_theirs)]},
    }


def test_seed_tests_pair_seed_k_with_seed_k():
    data = {"statistics": {}, "robustness": [
        row_with_seeds([5.7, 4.8, 3.2], [7.4, 9.5, 8.0], [52.3, 50.4, 49.3], [50.7, 48.0, 50.5]),
        row_with_seeds([1.0, 2.0, 3.0], [1.5, 2.0, 4.0], [50.0, 51.0, 52.0], [50.5, 50.5, 52.5]),
    ]}
    assert add_seed_inference(data)
    first = data["robustness"][0]
    test = first["groups"][0]["seed_test"]
    assert test["differences"] == pytest.approx([1.7, 4.7, 4.8])
    assert test["p"] == pytest.approx(stats.ttest_rel([7.4, 9.5, 8.0], [5.7, 4.8, 3.2]).pvalue)
    # Holm over the two rows' drop tests
    other = data["robustness"][1]["groups"][0]["seed_test"]
    smaller, larger = sorted([test["p"], other["p"]])
    assert min(test["p_holm"], other["p_holm"]) == pytest.approx(min(1.0, 2 * smaller))
    clean = first["clean"]
    assert clean["seed_test"]["difference"] == pytest.approx(np.mean([1.6, 2.4, -1.2]))
    assert clean["seed_tost"]["margin"] == 1.5 and clean["seed_tost"]["p"] > 0.05
    assert data["statistics"]["seed_inference"]["unit"].startswith("training run")


def test_one_seed_gets_no_seed_test():
    data = {"statistics": {}, "robustness": [row_with_seeds([5.0], [7.0], [50.0], [51.0])]}
    assert not add_seed_inference(data)
    row = data["robustness"][0]
    assert "seed_test" not in row["groups"][0] and "seed_test" not in row["clean"]
    assert "seed_inference" not in data["statistics"]


def test_unequal_seed_lists_without_random_seeds_are_refused():
    data = {"statistics": {}, "robustness": [row_with_seeds([5.0, 6.0], [7.0, 8.0, 9.0], [50.0, 51.0], [51.0, 52.0, 53.0])]}
    with pytest.raises(InputError, match=r"^robust against plain: 2 archives against 3, and no random_seed"):
        add_seed_inference(data)


def with_models(row, mine, theirs):
    models = [{"name": "robust", "archives": [f"r{k}" for k in range(len(mine))], "random_seeds": mine},
              {"name": "plain", "archives": [f"p{k}" for k in range(len(theirs))], "random_seeds": theirs}]
    return {"statistics": {}, "models": models, "robustness": [row]}


def test_seeds_pair_by_random_seed_not_by_position():
    # the model's archives are listed as seeds 3, 1, 2; the twin's as 1, 2, 3
    row = row_with_seeds([3.2, 5.7, 4.8], [7.4, 9.5, 8.0], [49.3, 52.3, 50.4], [50.7, 48.0, 50.5])
    data = with_models(row, [3, 1, 2], [1, 2, 3])
    assert add_seed_inference(data)
    test = data["robustness"][0]["groups"][0]["seed_test"]
    # seed 1: 7.4 - 5.7, seed 2: 9.5 - 4.8, seed 3: 8.0 - 3.2
    assert test["differences"] == pytest.approx([1.7, 4.7, 4.8])
    assert test["paired_by"].startswith("random_seed")
    clean = data["robustness"][0]["clean"]["seed_test"]
    assert clean["differences"] == pytest.approx([52.3 - 50.7, 50.4 - 48.0, 49.3 - 50.5])
    # by position the pairs would differ
    by_position = row_with_seeds([3.2, 5.7, 4.8], [7.4, 9.5, 8.0], [49.3, 52.3, 50.4], [50.7, 48.0, 50.5])
    add_seed_inference({"statistics": {}, "robustness": [by_position]})
    assert by_position["groups"][0]["seed_test"]["differences"] != pytest.approx([1.7, 4.7, 4.8])
    assert by_position["groups"][0]["seed_test"]["paired_by"].startswith("position")


@pytest.mark.parametrize("mine, theirs, message", [
    ([1, 2, 4], [1, 2, 3], r"^robust against plain: the seeds differ \(\[1, 2, 4\] against \[1, 2, 3\]\)"),
    ([1, 1, 2], [1, 2, 3], r"^robust against plain: robust has the random_seed 1 twice"),
    ([1, 2, 3], [None, None, None], r"^robust against plain: random_seeds .* every archive of both needs one"),
    ([1, 2], [1, 2, 3], r"^robust against plain: the seeds differ"),
])
def test_mismatched_seed_lists_are_refused_in_one_line(mine, theirs, message):
    row = row_with_seeds([5.0] * len(mine), [7.0] * len(theirs), [50.0] * len(mine), [51.0] * len(theirs))
    with pytest.raises(InputError, match=message) as caught:
        add_seed_inference(with_models(row, mine, theirs))
    assert "\n" not in str(caught.value)


def test_the_runs_get_variance_components_from_the_per_question_scores():
    data = results()
    scores = make_scores(data, seed=4, seeds={"robust": 3, "plain": 3})
    resampler = Resampler(200, seed=0, clusters=CONTEXTS)
    [row], _ = robustness(data, scores, resampler)
    held = row["groups"][0]
    parts = held["variance_components"]
    differences = ((scores[("plain", "clean")].f1_by_seed - scores[("plain", "asr")].f1_by_seed)
                   - (scores[("robust", "clean")].f1_by_seed - scores[("robust", "asr")].f1_by_seed))
    assert parts["estimate"] == pytest.approx(differences.mean()) == pytest.approx(held["drop_difference"])
    assert parts["seeds"] == 3 and parts["questions"] == 240 and parts["paragraphs"] == 60
    assert parts["share_seeds"] + parts["share_questions"] == pytest.approx(1.0)
    assert row["clean"]["variance_components"]["seeds"] == 3
    # a model with one seed against a twin with three: no seed pairs
    single = make_scores(data, seed=4, seeds={"plain": 3})
    [row], _ = robustness(data, single, resampler)
    assert "variance_components" not in row["groups"][0] and "variance_components" not in row["clean"]


@pytest.mark.slow
def test_declared_groups_are_one_family_beside_the_generator_groups():
    data = results()
    scores = make_scores(data, seed=5, seeds={"robust": 2, "plain": 2})
    resampler = Resampler(200, seed=0, clusters=CONTEXTS)
    data["robustness"], _ = robustness(data, scores, resampler)
    before = copy.deepcopy(data["robustness"][0]["groups"])
    family = declared_robustness(data, scores, resampler, [
        {"name": "speech", "sets": ["asr"], "label": "speech only", "declared": "after the results"},
        {"name": "both", "sets": ["asr", "typo"], "label": "both", "declared": None},
        {"name": "absent", "sets": ["nowhere"], "label": "x", "declared": None},
    ])
    row = data["robustness"][0]
    assert family == {"tests": 2, "method": "randomisation", "rounds": 10000}
    assert [g["group"] for g in row["set_groups"]] == ["speech", "both"]
    speech = row["set_groups"][0]
    assert speech["label"] == "speech only" and speech["declared"] == "after the results"
    assert speech["drop_difference"] == pytest.approx(before[0]["drop_difference"])  # the same sets as held_out
    assert speech["drop_test"]["p_holm"] >= speech["drop_test"]["p"]
    assert row["groups"] == before  # the generator groups are left as they were
    assert declared_robustness(data, scores, resampler, []) is None


@pytest.mark.slow
def test_a_study_with_seeds_and_declared_groups_carries_them_into_results_and_tables(tiny_archive, tmp_path):
    archives = []
    for name in ("p1", "p2", "r1", "r2"):
        archives.append(str(tmp_path / f"{name}.tar.gz"))
        shutil.copy(tiny_archive, archives[-1])
    typos = {"original": TINY, "interface": "keyboard", "kind": "synthetic"}
    sets = {}
    for name, noise, seed in (("keyboard", 0.5, 0), ("typos", 0.3, 3)):  # as a recipe's noise steps make them
        sets[name] = str(tmp_path / f"{name}.json")
        make_challenge_set(TINY, sets[name], {"type": "keyboard", "word_probability": noise}, seed=seed, progress=False)
    raw = {
        "models": {
            "plain": {"archives": [str(tiny_archive), archives[1]], "batch_size": 4},
            "robust": {"archives": archives[2:], "batch_size": 4, "twin": "plain", "trained_on_noise": ["keyboard"]},
        },
        "test_sets": {
            "clean": {"data": TINY, "interface": "clean", "kind": "natural"},
            "keyboard": dict(typos, data=sets["keyboard"], generator="keyboard"),
            "typos": dict(typos, data=sets["typos"], generator="other_typos"),
        },
        "set_groups": [{"name": "typing", "sets": ["keyboard", "typos"], "label": "every typo set",
                        "declared": "2026-12-02, a correction"}],
    }
    out_dir = tmp_path / "out"
    run_study(study_from_dict(raw, "seeds.json"), str(out_dir), progress=False)
    data = json.loads((out_dir / "results.json").read_text())
    [row] = data["robustness"]
    [typing] = row["set_groups"]
    assert typing["label"] == "every typo set" and typing["noisy_sets"] == ["keyboard", "typos"]
    assert typing["seed_test"]["seeds"] == 2 and row["clean"]["seed_tost"]["margin"] == 1.5
    assert [entry["set"] for entry in typing["by_set"]] == ["keyboard", "typos"]
    assert "set_groups" in data["statistics"]["families"] and "seed_inference" in data["statistics"]
    # the first archive of plain is the fixture's, whose run folder holds its learning curve
    plain = next(m for m in data["models"] if m["name"] == "plain")
    assert plain["validation_curves"][0]["metric"] == "validation_f1" and plain["validation_curves"][1] is None
    assert all(0 <= v <= 100 for v in plain["validation_curves"][0]["values"])
    markdown = (out_dir / "results.md").read_text()
    for title in ("## Inference over training runs (seed pairs)", "## Declared groups of noisy sets",
                  "## Validation curves", "Interval over the training runs"):
        assert title in markdown
