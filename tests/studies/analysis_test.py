import numpy as np
import pytest

from srcframework.metrics.statistics import Resampler, bootstrap_interval, holm, paired_test
from srcframework.studies.analysis import AnalysisOptions, add_analysis
from srcframework.studies.error_analysis import breakdowns, flip_examples, flips, question_wers
from srcframework.studies.question_scores import pair_scores
from srcframework.studies.significance import comparison_tests, correct, model_comparisons, paired_comparison
from srcframework.studies.study import StudyError

QUESTIONS = {
    "q1": ("Who founded Velmont?", "Who fonded Velmont?"),
    "q2": ("What is the harbour called?", "What is the harbour called?"),
    "q3": ("How many ships docked in 1902?", "How mny ships docked in 1902?"),
    "q4": ("When did the bridge open to the public after the long and costly repairs?",
           "When did teh bridge open to the public after the lnog and costly repairs?"),
    "q5": ("Which river flows past the old mill?", "Which rivr flws past the old mill?"),
}
GOLD = {"q1": "Anna Berg", "q2": "Port Vel", "q3": "twelve", "q4": "in 1911", "q5": "the Lune"}


def records(predictions: dict, noisy: bool) -> list:
    return [
        {"id": qid, "prediction": predictions.get(qid), "answers": [GOLD[qid]], "groups": {},
         "question": QUESTIONS[qid][1 if noisy else 0], "original_question": QUESTIONS[qid][0] if noisy else None}
        for qid in sorted(QUESTIONS, reverse=True)  # not in id order: the scores sort them
    ]


CLEAN = pair_scores(records({"q1": "Anna Berg", "q2": "Port Vel", "q3": "twelve", "q4": "1911"}, False), "m", "clean",
                    "clean.json")
NOISY = pair_scores(records({"q1": "Berg", "q2": "Port Vel", "q4": "in 1911", "q5": "Lune"}, True), "m", "noisy",
                    "noisy.json")


def test_scores_are_per_question_squad_em_and_f1_in_id_order():
    assert CLEAN.ids == ["q1", "q2", "q3", "q4", "q5"]
    assert CLEAN.em.tolist() == [100.0, 100.0, 100.0, 0.0, 0.0]  # "1911" against "in 1911": F1 only
    assert CLEAN.f1[3] == pytest.approx(100 * 2 * 1 * 0.5 / 1.5) and CLEAN.f1[4] == 0.0  # no prediction scores 0
    assert NOISY.em.tolist() == [0.0, 100.0, 0.0, 100.0, 100.0]


def test_duplicate_question_id_names_the_id_and_the_file():
    twice = records({}, False) + records({}, False)[:1]
    with pytest.raises(StudyError, match=r"test set clean \(data/clean.json\): question id 'q5' occurs more than once"):
        pair_scores(twice, "m", "clean", "data/clean.json")


def test_flips_count_exact_match_changes_both_ways():
    assert flips(CLEAN, NOISY) == {"questions": 5, "right_to_wrong": 2, "wrong_to_right": 2}  # q1, q3; q4, q5
    examples = flip_examples(CLEAN, NOISY, 1)
    assert examples["right_to_wrong"] == [{
        "id": "q1", "clean_question": "Who founded Velmont?", "noisy_question": "Who fonded Velmont?",
        "answers": ["Anna Berg"], "clean_prediction": "Anna Berg", "noisy_prediction": "Berg",
    }]
    assert [e["id"] for e in examples["wrong_to_right"]] == ["q4"]
    assert [e["id"] for e in flip_examples(CLEAN, NOISY, 5)["wrong_to_right"]] == ["q4", "q5"]
    assert flip_examples(CLEAN, NOISY, 0) == {"right_to_wrong": [], "wrong_to_right": []}


def test_breakdowns_by_type_length_and_wer_of_the_clean_question():
    resampler = Resampler(200, 0)
    found = breakdowns(NOISY, resampler, with_wer=True)
    assert list(found["by_question_type"]) == ["what", "who", "when", "which", "how many/much"]
    who = found["by_question_type"]["who"]
    assert who["count"] == 1 and who["f1"] == pytest.approx(NOISY.f1[0]) and who["f1_low"] == who["f1_high"] == who["f1"]
    assert {k: v["count"] for k, v in found["by_length"].items()} == {"1-5": 2, "6-8": 2, "12-15": 1}
    wers = question_wers(NOISY)
    assert wers["q2"] == 0.0 and wers["q1"] == pytest.approx(100 / 3) and wers["q5"] == pytest.approx(100 * 2 / 7)
    assert {k: v["count"] for k, v in found["by_wer_bucket"].items()} == {"0": 1, "0-20": 2, "20-40": 2}
    bucket = found["by_wer_bucket"]["20-40"]
    values = NOISY.f1[[0, 4]]
    assert (bucket["f1_low"], bucket["f1_high"]) == pytest.approx(bootstrap_interval(values, 200, 0))
    assert breakdowns(NOISY, resampler, with_wer=False)["by_wer_bucket"] == {}
    assert breakdowns(CLEAN, resampler, with_wer=True)["by_wer_bucket"] == {}  # no original_question


def test_paired_comparison_over_shared_ids():
    resampler = Resampler(300, 4)
    drop = paired_comparison(CLEAN, NOISY, resampler)
    assert drop["questions"] == 5
    assert drop["f1"] == pytest.approx(paired_test(CLEAN.f1, NOISY.f1, 300, seed=4))  # each question alone
    same = paired_comparison(CLEAN, CLEAN, resampler)
    assert same["em"] == {"difference": 0.0, "low": 0.0, "high": 0.0, "p": 1.0}
    correct(comparison_tests([drop, same]))
    assert same["em"]["p_holm"] == 1.0 and not same["em"]["significant"]
    family = [drop["em"]["p"], drop["f1"]["p"], 1.0, 1.0]
    assert [drop["em"]["p_holm"], drop["f1"]["p_holm"]] == pytest.approx(holm(family)[:2])
    partial = pair_scores([r for r in records({"q2": "Port Vel"}, True) if r["id"] in ("q2", "q3")], "m", "part", "p")
    assert paired_comparison(CLEAN, partial, resampler)["questions"] == 2
    other = pair_scores([dict(r, id="x" + r["id"]) for r in records({}, False)], "m", "other", "o")
    assert paired_comparison(CLEAN, other, resampler) == {"questions": 0, "em": None, "f1": None}


def test_model_comparisons_follow_the_model_order():
    scores = {("b", "clean"): CLEAN, ("a", "clean"): NOISY, ("c", "clean"): CLEAN, ("a", "noisy"): NOISY}
    found = model_comparisons(scores, ["a", "b", "c"], ["clean", "noisy"], Resampler(100, 0))
    assert [(c["set"], c["first"], c["second"]) for c in found] == [("clean", "a", "b"), ("clean", "a", "c"),
                                                                     ("clean", "b", "c")]
    assert found[2]["f1"]["p"] == 1.0 and found[2]["f1"]["p_holm"] == 1.0


def test_add_analysis_fills_every_pair_and_the_study():
    results = {
        "models": [{"name": "m"}],
        "test_sets": [{"name": "clean", "input": "text", "interface": "clean"},
                      {"name": "noisy", "input": "text", "interface": "keyboard"}],
        "pairs": [{"model": "m", "set": "clean", "reference": None}, {"model": "m", "set": "noisy", "reference": "clean"}],
    }
    add_analysis(results, {("m", "clean"): CLEAN, ("m", "noisy"): NOISY}, AnalysisOptions(bootstrap=100, seed=2, examples=1))
    clean, noisy = results["pairs"]
    assert clean["drop_test"] is None and clean["flips"] is None and clean["by_wer_bucket"] == {}
    # no contexts given: each question is resampled alone
    assert (noisy["f1_low"], noisy["f1_high"]) == pytest.approx(bootstrap_interval(NOISY.f1, 100, 2))
    assert noisy["flips"]["right_to_wrong"] == 2 and noisy["by_wer_bucket"]
    assert noisy["drop_test"]["em"]["difference"] == pytest.approx(np.mean(CLEAN.em) - np.mean(NOISY.em))
    assert results["comparisons"] == []
    assert [len(results["examples"][0][k]) for k in ("right_to_wrong", "wrong_to_right")] == [1, 1]
    assert results["statistics"] == {
        "bootstrap": 100, "seed": 2, "confidence": 0.95, "bootstrap_unit": "context", "questions": 5, "contexts": 5,
        "questions_without_context": 5, "test": "paired approximate randomisation", "permutations": 10000,
        "correction": "Holm-Bonferroni", "significance_level": 0.05, "equivalence_margin": 1.5, "right": "exact match 1",
        "examples": 1, "families": {"drop_tests": {"tests": 2, "method": "randomisation", "rounds": 10000},
                                    "model_comparisons": {"tests": 0, "method": "randomisation", "rounds": 10000},
                                    "robustness": {"tests": 0, "method": "randomisation", "rounds": 10000}},
    }
    tests = [noisy["drop_test"]["em"], noisy["drop_test"]["f1"]]
    assert [t["p_holm"] for t in tests] == pytest.approx(holm([t["p"] for t in tests]))
    assert all(t["significant"] == (t["p_holm"] < 0.05) for t in tests)
    with pytest.raises(ValueError, match="--bootstrap must be at least 1"):
        AnalysisOptions(bootstrap=0)


def test_sentence_wers_equal_the_corpus_wer_of_each_pair_alone():
    from srcframework.metrics.text_noise import wer
    from srcframework.studies.error_analysis import sentence_wers

    pairs = [(clean, noisy) for clean, noisy in QUESTIONS.values()] + [
        ("Who built it?", "who built it"), ("Who built it?", "Who who built the it now?"), ("A b c", ""),
        ("?!", "anything"), ("Who built it?", "who built it"),
    ]
    cache = {}
    found = sentence_wers(pairs, cache)
    assert found[-2] is None  # nothing left of the clean question to measure against
    for (clean, noisy), value in zip(pairs, found):
        if value is not None:
            assert value == pytest.approx(wer([clean], [noisy])), (clean, noisy)
    assert found[-1] == found[5] == 0.0 and len(cache) == len(set(pairs))
    cache[pairs[0]] = -1.0  # a second call reads the cache
    assert sentence_wers(pairs[:1], cache) == [-1.0]


def test_cross_comparisons_pair_two_sets_by_their_shared_ids_as_one_family():
    from srcframework.studies.significance import cross_comparisons

    spoken = pair_scores([r for r in records({"q1": "Anna Berg", "q3": "12"}, True) if r["id"] != "q2"], "e2e",
                         "spoken", "spoken.csv")
    other = pair_scores([dict(r, id="x" + r["id"]) for r in records({}, False)], "text", "other", "o")
    scores = {("m", "clean"): CLEAN, ("e2e", "spoken"): spoken, ("text", "other"): other}
    resampler = Resampler(300, 4, clusters={"q1": "p1", "q2": "p1", "q3": "p2", "q4": "p2", "q5": "p3"})
    found = cross_comparisons([("e2e vs cascade", ("e2e", "spoken"), ("m", "clean")),
                               ("nothing shared", ("m", "clean"), ("text", "other"))], scores, resampler)
    first, empty = found
    assert first["label"] == "e2e vs cascade" and first["first"] == {"model": "e2e", "set": "spoken"}
    assert first["questions"] == 4  # q2 is not in the spoken set
    shared = ["q1", "q3", "q4", "q5"]
    by_hand = np.mean([spoken.f1[spoken.ids.index(q)] - CLEAN.f1[CLEAN.ids.index(q)] for q in shared])
    assert first["f1"]["difference"] == pytest.approx(by_hand)
    direct = paired_comparison(spoken, CLEAN, Resampler(300, 4, clusters=resampler.clusters))
    for metric in ("em", "f1"):
        assert {k: first[metric][k] for k in ("difference", "low", "high", "p")} == pytest.approx(direct[metric])
    assert [first["em"]["p_holm"], first["f1"]["p_holm"]] == pytest.approx(holm([direct["em"]["p"], direct["f1"]["p"]]))
    assert empty["questions"] == 0 and empty["em"] is None and empty["f1"] is None


def country_scores(countries: dict, seeds: int = 1) -> "PairScores":
    found = records({"q1": "Anna Berg", "q2": "Vel", "q3": "twelve", "q4": "1911"}, False)
    for record in found:
        record["groups"] = {"country": countries.get(record["id"])} if record["id"] in countries else {}
    scores = pair_scores(found, "m", "spoken", "spoken.csv")
    if seeds > 1:
        scores.f1_by_seed = np.stack([scores.f1, scores.f1[::-1]])
        scores.f1 = scores.f1_by_seed.mean(axis=0)
    return scores


def reference_range_p(values, groups, rounds, seed):
    """The permutation p by an explicit loop: the same shuffles of the labels, each group's mean."""
    generator = np.random.default_rng(seed)
    names = sorted(set(groups))

    def spread(labels):
        means = [np.mean([v for v, g in zip(values, labels) if g == name]) for name in names]
        return max(means) - min(means)

    codes = np.unique(np.asarray(groups), return_inverse=True)[1]
    observed, hits = spread(groups), 0
    for _ in range(rounds):
        shuffled = [names[code] for code in generator.permutation(codes)]
        hits += spread(shuffled) >= observed - 1e-9
    return (hits + 1) / (rounds + 1)


def test_f1_range_test_shuffles_the_countries_over_the_questions():
    from srcframework.reports.accent import accent_report
    from srcframework.studies.significance import f1_range_test

    scores = country_scores({"q1": "US", "q2": "India", "q3": "US", "q4": "India", "q5": "UK"})
    report = accent_report(list(scores.records.values()))
    found = f1_range_test(scores, "country", 300, 3)
    countries = [scores.records[q]["groups"]["country"] for q in scores.ids]
    assert found["p"] == pytest.approx(reference_range_p(list(scores.f1), countries, 300, 3))
    assert found["rounds"] == 300 and found["test"].startswith("permutation test of no difference")
    assert 0 < found["p"] <= 1 and report["f1_range"]["value"] >= 0
    assert f1_range_test(country_scores({"q1": "US", "q2": "US"}), "country", 100) is None  # one country
    assert f1_range_test(country_scores({}), "country", 100) is None
    two_seeds = f1_range_test(country_scores({"q1": "US", "q2": "India", "q3": "US", "q4": "India"}, 2), "country", 100)
    assert 0 < two_seeds["p"] <= 1


def equal_groups():
    found = []
    for index in range(40):
        qid = f"q{index:02d}"
        country = "US" if index < 20 else "UK"
        found.append({"id": qid, "prediction": "yes" if index % 2 else "no", "answers": ["yes"],
                      "groups": {"country": country}, "question": "Is it?", "original_question": None})
    return pair_scores(found, "m", "spoken", "spoken.csv")


def test_a_range_of_groups_that_do_not_differ_is_not_called_a_difference():
    # a bootstrap interval of this range of 0 lay above 0; the permutation test finds nothing
    from srcframework.studies.significance import f1_range_test

    scores = equal_groups()
    assert scores.f1[:20].mean() == scores.f1[20:].mean()  # the range itself is 0
    assert f1_range_test(scores, "country", 500)["p"] == 1.0
    # groups that differ: every US question right, every UK question wrong
    apart = equal_groups()
    apart.f1_by_seed = np.where(np.arange(40) < 20, 100.0, 0.0)[None, :]
    assert f1_range_test(apart, "country", 500)["p"] == pytest.approx(1 / 501)


def test_add_analysis_gives_the_f1_range_a_test_and_the_cross_comparisons_a_family():
    from srcframework.reports.accent import accent_report

    scores = country_scores({"q1": "US", "q2": "India", "q3": "US", "q4": "India", "q5": "UK"})
    report = accent_report(list(scores.records.values()))
    noisy = pair_scores(records({"q1": "Berg", "q2": "Port Vel"}, True), "m", "noisy", "noisy.json")
    results = {
        "models": [{"name": "m"}],
        "test_sets": [{"name": "spoken", "input": "audio", "interface": "accent"},
                      {"name": "noisy", "input": "text", "interface": "keyboard"}],
        "pairs": [{"model": "m", "set": "spoken", "reference": None, "f1_range": report["f1_range"]},
                  {"model": "m", "set": "noisy", "reference": None, "f1_range": None}],
    }
    found = add_analysis(results, {("m", "spoken"): scores, ("m", "noisy"): noisy}, AnalysisOptions(bootstrap=200),
                         comparisons=[("spoken vs typed", ("m", "spoken"), ("m", "noisy"))])
    spread = found["pairs"][0]["f1_range"]
    assert 0 < spread["p"] <= 1 and "low" not in spread and spread["best"] == report["f1_range"]["best"]
    assert found["pairs"][1]["f1_range"] is None
    [cross] = found["cross_comparisons"]
    assert cross["questions"] == 5 and cross["f1"]["p_holm"] is not None
    assert found["statistics"]["families"]["cross_comparisons"]["tests"] == 2
    plain = add_analysis({"models": results["models"], "test_sets": results["test_sets"][1:],
                          "pairs": [{"model": "m", "set": "noisy", "reference": None, "f1_range": None}]},
                         {("m", "noisy"): noisy}, AnalysisOptions(bootstrap=50))
    assert "cross_comparisons" not in plain and "cross_comparisons" not in plain["statistics"]["families"]
