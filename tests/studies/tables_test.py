"""The tables a study's results give (`results` is the accent study's results.json: tests/studies/conftest.py)."""
import copy

import pytest

from srcframework.studies.cells import Estimate, PValue, format_cell
from srcframework.studies.results_markdown import results_markdown
from srcframework.studies.tables import results_tables


def pair(results, model, test_set):
    return next(p for p in results["pairs"] if p["model"] == model and p["set"] == test_set)


def test_tables_follow_the_papers_layouts(results):
    tables = {table.name: table for table in results_tables(results)}
    # the fixture's models were trained from their configs here: their run folders hold their learning curves
    assert list(tables) == ["em_f1", "validation_curves", "drop_tests", "model_comparisons", "f1_by_country", "f1_by_gender", "f1_by_speaker",
                            "question_noise", "wer_by_country", "flips", "f1_by_question_type", "f1_by_length", "f1_by_wer_bucket"]
    em_f1 = tables["em_f1"]
    assert em_f1.flat_header()[:9] == [
        "Test set", "Interface", "Kind", "tiny EM", "tiny F1", "tiny ΔF1", "twin EM", "twin F1", "twin ΔF1",
    ]
    rows = {row[0]: row for row in em_f1.rows}
    assert list(rows) == ["clean", "accent", "accent_audio_like", "keyboard"]
    keyboard = pair(results, "tiny", "keyboard")
    drop = keyboard["drop_test"]["f1"]
    assert rows["keyboard"][3:6] == [
        Estimate(keyboard["em"], keyboard["em_low"], keyboard["em_high"]),
        Estimate(keyboard["f1"], keyboard["f1_low"], keyboard["f1_high"]),
        Estimate(drop["difference"], drop["low"], drop["high"], "†" if drop["p_holm"] < 0.05 else ""),
    ]
    assert tables["drop_tests"].header[3:] == ["Questions", "ΔEM", "p (EM)", "p Holm (EM)", "ΔF1", "p (F1)", "p Holm (F1)"]
    line = next(row for row in tables["drop_tests"].rows if row[:2] == ["tiny", "keyboard"])
    assert [line[6].value, line[9].value] == [keyboard["drop_test"]["em"]["p_holm"], drop["p_holm"]]
    assert any("only the corrected p marks a difference" in note for note in tables["drop_tests"].notes)
    assert rows["keyboard"][6:] == [None, None, None]  # twin did not run on it
    assert rows["clean"][5] is None  # no drop for the clean set itself
    country = tables["f1_by_country"]
    assert country.header == ["Model", "Test set", "India", "Thailand", "UK", "US", "F1 range"]
    accent = pair(results, "twin", "accent")
    row = next(r for r in country.rows if r[:2] == ["twin", "accent"])
    assert row[2:6] == [accent["by_country"][c]["f1"] for c in ["India", "Thailand", "UK", "US"]]
    spread = accent["f1_range"]
    assert row[6] == f"{spread['value']:.1f} (p {format_cell(PValue(spread['p']))})"
    assert 0 < spread["p"] <= 1 and "low" not in spread
    # the same over voices: each speaker's F1 and the best voice's minus the worst's, with its interval
    voices = tables["f1_by_speaker"]
    speakers = sorted(accent["by_speaker"])
    assert len(speakers) >= 2 and voices.header == ["Model", "Test set"] + speakers + ["F1 range"]
    row = next(r for r in voices.rows if r[:2] == ["twin", "accent"])
    assert row[2:-1] == [accent["by_speaker"][s]["f1"] for s in speakers]
    spread = accent["f1_range_by_speaker"]
    f1s = [accent["by_speaker"][s]["f1"] for s in speakers]
    assert spread["value"] == pytest.approx(max(f1s) - min(f1s))
    assert row[-1] == f"{spread['value']:.1f} (p {format_cell(PValue(spread['p']))})"
    assert 0 < spread["p"] <= 1
    assert "best voice's F1 minus the worst's" in voices.notes[0]
    noisy = [r[0] for r in tables["question_noise"].rows if r[0] != "clean"]
    assert noisy == ["accent", "accent_audio_like (via accent)", "keyboard"]
    wer = tables["wer_by_country"].rows[0]
    assert wer[1:] == [results["test_sets"][1]["question_noise"]["by_country"][c] for c in ["India", "Thailand", "UK", "US"]]


def test_tables_without_rows_are_left_out(results):
    plain = copy.deepcopy(results)
    for item in plain["pairs"]:
        item.update(by_country={}, by_gender={}, by_speaker={}, f1_range=None, drop_test=None, flips=None, by_question_type={},
                    by_length={}, by_wer_bucket={})
    for item in plain["test_sets"]:
        item["question_noise"] = None
    plain["comparisons"] = []
    for model in plain["models"]:
        model.pop("validation_curves", None)
    assert [table.name for table in results_tables(plain)] == ["em_f1"]
    markdown = results_markdown(plain)
    assert "## EM / F1 by test set and model" in markdown and "F1 by country" not in markdown


def test_a_comparison_without_shared_questions_says_so(results):
    found = copy.deepcopy(results)
    found["cross_comparisons"] = [{"label": "apart", "first": {"model": "tiny", "set": "clean"},
                                   "second": {"model": "twin", "set": "accent"}, "questions": 0, "em": None, "f1": None}]
    table = next(t for t in results_tables(found) if t.name == "cross_comparisons")
    assert table.rows == [["apart", "tiny on clean", "twin on accent", 0, "no shared questions", None, None,
                           "no shared questions", None, None]]
    assert "| apart | tiny on clean | twin on accent | 0 | no shared questions | - |" in results_markdown(found)
    assert "cross_comparisons" not in [t.name for t in results_tables(results)]
