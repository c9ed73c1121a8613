import numpy as np
import pytest

from srcframework.metrics.statistics import Resampler, holm, percentile_interval
from srcframework.studies.question_scores import PairScores
from srcframework.studies.robustness import noise_groups, robustness
from srcframework.studies.study import StudyError, study_from_dict
from srcframework.studies.results_markdown import markdown_table
from srcframework.studies.test_tables import robustness_table
from tests.conftest import FIXTURES
from tests.metrics.statistics_test import loop_cluster_means

TINY = str(FIXTURES / "squad_tiny.json")
SIZE = 240
IDS = [f"q{i:03d}" for i in range(SIZE)]
CONTEXTS = {qid: f"c{i // 4:02d}" for i, qid in enumerate(IDS)}  # four questions a paragraph


def results(robust=("robust",)):
    sets = [{"name": "clean", "generator": None}, {"name": "asr", "generator": "asr"},
            {"name": "typo", "generator": "keyboard"}, {"name": "odd", "generator": None}]
    models = [{"name": "plain", "twin": None}]
    models += [{"name": name, "twin": "plain", "trained_on_noise": ["keyboard"]} for name in robust]
    pairs = [{"model": m["name"], "set": s["name"], "reference": None if s["name"] == "clean" else "clean"}
             for m in models for s in sets]
    return {"study": "s", "models": models, "test_sets": sets, "pairs": pairs}


def f1_scores(rate: float, rng, size: int = SIZE) -> np.ndarray:
    return (rng.random(size) < rate) * 100.0


RATES = {"plain": {"clean": 0.6, "asr": 0.4, "typo": 0.35, "odd": 0.5},
         "robust": {"clean": 0.6, "asr": 0.5, "typo": 0.55, "odd": 0.55},
         "other": {"clean": 0.55, "asr": 0.5, "typo": 0.5, "odd": 0.5}}


def make_scores(data, seed=0, seeds=None):
    """Per-question F1 of every pair; the typo set misses its last 40 questions (so the set-level
    drop is over other questions than the shared ones)."""
    rng = np.random.default_rng(seed)
    scores = {}
    for p in data["pairs"]:
        count = (seeds or {}).get(p["model"], 1)
        by_seed = np.stack([f1_scores(RATES[p["model"]][p["set"]], rng) for _ in range(count)])
        keep = SIZE - 40 if p["set"] == "typo" else SIZE
        scores[(p["model"], p["set"])] = PairScores(p["model"], p["set"], IDS[:keep], by_seed.mean(0)[:keep],
                                                    by_seed.mean(0)[:keep], {}, by_seed[:, :keep], by_seed[:, :keep])
    return scores


def test_noise_groups_split_by_the_generators_a_model_trained_on():
    generators = {"asr": "asr", "typo": "keyboard", "odd": None}
    noisy = ["asr", "typo", "odd"]
    assert noise_groups({"trained_on_noise": None}, noisy, generators) == [("all", noisy)]
    assert noise_groups({"trained_on_noise": ["keyboard"]}, noisy, generators) == [
        ("held_out", ["asr"]), ("seen", ["typo"]), ("undeclared", ["odd"]), ("all", noisy)]
    assert noise_groups({"trained_on_noise": []}, ["asr", "typo"], generators) == [("held_out", ["asr", "typo"])]


def test_estimate_interval_and_test_use_the_same_questions():
    data = results()
    scores = make_scores(data)
    resampler = Resampler(400, seed=3, clusters=CONTEXTS)
    [row], family = robustness(data, scores, resampler)
    assert row["primary"] == "held_out" and [g["group"] for g in row["groups"]] == ["held_out", "seen", "undeclared", "all"]
    assert family == {"tests": 4, "method": "randomisation", "rounds": 10000}
    everything = row["groups"][-1]
    shared = IDS[: SIZE - 40]  # the typo set's questions, which every pair of the group holds
    assert everything["questions"] == len(shared)

    def drops(model):
        clean = scores[(model, "clean")].f1[: len(shared)]
        return np.mean([clean - scores[(model, s)].f1[: len(shared)] for s in ("asr", "typo", "odd")], axis=0)

    mine, theirs = drops("robust"), drops("plain")
    assert everything["mean_drop"] == pytest.approx(mine.mean())
    assert everything["twin_mean_drop"] == pytest.approx(theirs.mean())
    test = everything["drop_test"]
    assert test["difference"] == pytest.approx(theirs.mean() - mine.mean()) == everything["drop_difference"]
    reference = loop_cluster_means(shared, CONTEXTS, theirs - mine, 400, 3)
    assert (test["low"], test["high"]) == pytest.approx(percentile_interval(reference), abs=1e-9)
    assert test["low"] < test["difference"] < test["high"]
    assert everything["drop_reduction"] == pytest.approx(100 * test["difference"] / theirs.mean())
    assert everything["drop_reduction_low"] < everything["drop_reduction"] < everything["drop_reduction_high"]
    # the primary group's figures at the top of the row
    held = row["groups"][0]
    assert held["noisy_sets"] == ["asr"] and held["questions"] == SIZE
    assert (row["noisy_sets"], row["mean_drop"], row["drop_difference"]) == (["asr"], held["mean_drop"], held["drop_difference"])
    assert [g["drop_test"]["p_holm"] for g in row["groups"]] == pytest.approx(holm([g["drop_test"]["p"] for g in row["groups"]]))


def test_clean_f1_equivalence_and_its_verdict():
    data = results(("robust", "other"))
    scores = make_scores(data)
    scores[("robust", "clean")] = scores[("plain", "clean")]  # the same answers: equivalent
    rows, _ = robustness(data, scores, Resampler(500, seed=1, clusters=CONTEXTS), margin=1.5)
    same, other = rows[0]["clean"], rows[1]["clean"]
    assert same["change"] == 0.0 and same["tost_p"] == pytest.approx(1 / 501) and same["verdict"] == "equivalent"
    assert [c["tost_p_holm"] for c in (same, other)] == pytest.approx(holm([same["tost_p"], other["tost_p"]]))
    assert same["margin"] == 1.5 and same["questions"] == SIZE and rows[0]["clean_f1_change"] == 0.0
    change = scores[("other", "clean")].f1.mean() - scores[("plain", "clean")].f1.mean()
    assert other["change"] == pytest.approx(change)
    assert other["verdict"] == ("inconclusive" if other["noninferiority_p_holm"] >= 0.05 else "not worse")
    wide, _ = robustness(data, scores, Resampler(500, seed=1, clusters=CONTEXTS), margin=30.0)
    assert wide[1]["clean"]["verdict"] == "equivalent"


def test_seeds_give_per_seed_drops():
    data = results()
    one = robustness(data, make_scores(data, seed=2), Resampler(300, seed=0, clusters=CONTEXTS))[0][0]
    assert "seeds" not in one["groups"][0] and "seeds" not in one["clean"]
    scores = make_scores(data, seed=2, seeds={"robust": 3})
    [row], _ = robustness(data, scores, Resampler(300, seed=0, clusters=CONTEXTS))
    held = row["groups"][0]
    by_seed = scores[("robust", "clean")].f1_by_seed - scores[("robust", "asr")].f1_by_seed
    assert [s["mean_drop"] for s in held["seeds"]] == pytest.approx(by_seed.mean(axis=1).tolist())
    assert held["mean_drop"] == pytest.approx(by_seed.mean()) and "twin_seeds" not in held
    assert [s["f1"] for s in row["clean"]["seeds"]] == pytest.approx(
        scores[("robust", "clean")].f1_by_seed.mean(axis=1).tolist())


def test_no_row_without_a_twin_and_no_figures_without_shared_questions():
    data = results()
    data["models"][1]["twin"] = None
    assert robustness(data, make_scores(data), Resampler(100))[0] == []
    data = results()
    scores = make_scores(data)
    moved = scores[("plain", "asr")]
    scores[("plain", "asr")] = PairScores("plain", "asr", [f"x{i}" for i in moved.ids], moved.em, moved.f1, {})
    [row], _ = robustness(data, scores, Resampler(100))
    assert row["groups"][0]["questions"] == 0 and row["groups"][0]["drop_difference"] is None
    assert row["groups"][1]["drop_difference"] is not None


def test_table_shows_the_groups_with_raw_and_corrected_p_and_the_verdict():
    data = results()
    scores = make_scores(data)
    data["robustness"], family = robustness(data, scores, Resampler(200, clusters=CONTEXTS))
    data["statistics"] = {"confidence": 0.95, "bootstrap": 200, "seed": 0, "bootstrap_unit": "context",
                          "test": "paired approximate randomisation", "permutations": 10000, "significance_level": 0.05,
                          "correction": "Holm-Bonferroni", "equivalence_margin": 1.5, "families": {"robustness": family}}
    table = robustness_table(data)
    assert table.header[6:10] == ["Drop difference", "p", "p (Holm)", "Drop reduction %"]
    assert [row[2] for row in table.rows] == ["held-out generator (primary): asr", "generator used in training: typo",
                                              "no generator given: odd", "all noisy sets: asr, typo, odd"]
    held = data["robustness"][0]["groups"][0]
    first = table.rows[0]
    assert first[6].value == held["drop_difference"] and first[8].value == held["drop_test"]["p_holm"]
    assert first[6].mark == ("†" if held["drop_test"]["p_holm"] < 0.05 else "")
    assert first[13] == data["robustness"][0]["clean"]["verdict"] and table.rows[1][10:] == [None] * 4
    text = markdown_table(table) + "\n".join(table.notes)
    assert table.title == "Robust training against the clean-trained twin" and "p (Holm) < 0.05" in text
    assert "Holm-Bonferroni-corrected over this table's 4 tests" in text and "+-1.5 F1 points" in text


def test_model_keys_for_twins_noise_and_seeds():
    raw = {"models": {"a": {"archive": TINY, "twin": "b", "trained_on_noise": ["keyboard"]}, "b": {"archive": TINY}},
           "test_sets": {"clean": {"data": TINY, "interface": "clean", "kind": "natural"},
                         "typo": {"data": TINY, "interface": "keyboard", "kind": "synthetic", "generator": "keyboard"}}}
    study = study_from_dict(raw, "s.jsonnet")
    assert study.models["a"].twin == "b" and study.models["a"].trained_on_noise == ("keyboard",)
    assert study.models["b"].trained_on_noise is None and study.test_sets["typo"].generator == "keyboard"
    assert study.bootstrap_unit == "context" and study.equivalence_margin == 1.5
    assert study.models["a"].archives == (TINY,) and study.runs == [("a", "clean", 0), ("a", "typo", 0),
                                                                    ("b", "clean", 0), ("b", "typo", 0)]
    raw["models"]["a"]["twin"] = "missing"
    with pytest.raises(StudyError, match="models.a.twin"):
        study_from_dict(raw, "s.jsonnet")
    raw["models"]["a"]["twin"] = "a"
    with pytest.raises(StudyError, match="another model"):
        study_from_dict(raw, "s.jsonnet")
