import copy
import csv
import io

import pytest

from srcframework.studies.results_csv import CSV_COLUMNS, results_csv
from tests.studies.tables_test import pair


def test_csv_has_a_row_per_pair_and_group_at_full_precision(results):
    rows = list(csv.DictReader(io.StringIO(results_csv(results))))
    assert list(rows[0]) == CSV_COLUMNS
    keys = ("by_country", "by_gender", "by_speaker", "by_question_type", "by_length", "by_wer_bucket")
    expected = sum(1 + sum(len(p[key]) for key in keys) for p in results["pairs"]) + len(results["comparisons"])
    assert len(rows) == expected
    assert all(None not in row.values() and len(row) == len(CSV_COLUMNS) for row in rows)
    overall = next(r for r in rows if r["model"] == "tiny" and r["set"] == "keyboard" and r["group_key"] == "all")
    keyboard = pair(results, "tiny", "keyboard")
    assert float(overall["f1"]) == pytest.approx(keyboard["f1"], abs=1e-4)
    assert float(overall["f1_drop"]) == pytest.approx(keyboard["f1_drop"], abs=1e-4)
    noise = next(s for s in results["test_sets"] if s["name"] == "keyboard")["question_noise"]
    assert float(overall["question_bleu"]) == pytest.approx(noise["bleu"], abs=1e-4)
    india = next(r for r in rows if r["set"] == "accent" and r["group_key"] == "country" and r["group"] == "India")
    accent = pair(results, india["model"], "accent")["by_country"]["India"]
    india_wer = next(s for s in results["test_sets"] if s["name"] == "accent")["question_noise"]["by_country"]["India"]
    assert int(india["questions"]) == accent["count"] and float(india["question_wer"]) == pytest.approx(india_wer, abs=1e-4)
    keyboard_drop = keyboard["drop_test"]
    assert float(overall["f1_low"]) == pytest.approx(keyboard["f1_low"], abs=1e-4)
    assert float(overall["f1_drop_high"]) == pytest.approx(keyboard_drop["f1"]["high"], abs=1e-4)
    assert float(overall["em_drop_p"]) == pytest.approx(keyboard_drop["em"]["p"], abs=1e-4)
    assert float(overall["f1_drop_p_holm"]) == pytest.approx(keyboard_drop["f1"]["p_holm"], abs=1e-4)
    assert int(overall["right_to_wrong"]) == keyboard["flips"]["right_to_wrong"]
    what = next(r for r in rows if r["model"] == "tiny" and r["set"] == "keyboard" and r["group"] == "what")
    assert what["group_key"] == "question_type"
    assert float(what["f1_high"]) == pytest.approx(keyboard["by_question_type"]["what"]["f1_high"], abs=1e-4)
    versus = [r for r in rows if r["group_key"] == "versus"]
    assert [(r["model"], r["set"], r["group"]) for r in versus] == [("twin", "clean", "tiny"), ("twin", "accent", "tiny")]
    comparison = results["comparisons"][1]
    assert float(versus[1]["f1_drop"]) == pytest.approx(comparison["f1"]["difference"], abs=1e-4)
    assert float(versus[1]["f1_drop_p"]) == pytest.approx(comparison["f1"]["p"], abs=1e-4)
    assert float(versus[1]["f1_drop_p_holm"]) == pytest.approx(comparison["f1"]["p_holm"], abs=1e-4)


def test_csv_has_a_row_per_comparison_across_sets(results):
    found = copy.deepcopy(results)
    versus = results["comparisons"][1]  # a test of the same shape: twin against tiny
    found["cross_comparisons"] = [
        {"label": "seen against held out", "first": {"model": "tiny", "set": "clean"},
         "second": {"model": "twin", "set": "accent"}, "questions": versus["questions"], "em": versus["em"],
         "f1": versus["f1"]},
        {"label": "apart", "first": {"model": "tiny", "set": "clean"}, "second": {"model": "twin", "set": "clean"},
         "questions": 0, "em": None, "f1": None},
    ]
    rows = [r for r in csv.DictReader(io.StringIO(results_csv(found))) if r["group_key"] == "cross"]
    assert [(r["model"], r["set"], r["group"], r["questions"]) for r in rows] == [
        ("twin", "accent", "seen against held out", str(versus["questions"])), ("twin", "clean", "apart", "0")]
    assert float(rows[0]["f1_drop"]) == pytest.approx(versus["f1"]["difference"], abs=1e-4)
    assert float(rows[0]["f1_drop_p_holm"]) == pytest.approx(versus["f1"]["p_holm"], abs=1e-4)
    assert rows[1]["f1_drop"] == "" and rows[1]["f1_drop_p"] == ""
    assert all(None not in row.values() and len(row) == len(CSV_COLUMNS) for row in rows)
