import copy
import csv
import io
import json
import re

import pytest

from srcframework.studies.cells import Estimate, PValue, format_cell
from srcframework.studies.results_csv import CSV_COLUMNS, results_csv
from srcframework.studies.results_markdown import results_markdown
from srcframework.studies.results_tex import results_tex, tex_escape
from srcframework.studies.tables import results_tables


@pytest.fixture(scope="module")
def results(accent_study_dir):
    return json.loads((accent_study_dir / "results.json").read_text())


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


def test_markdown_shows_one_decimal_and_dashes(results):
    markdown = results_markdown(results)
    keyboard = pair(results, "tiny", "keyboard")
    line = next(line for line in markdown.splitlines() if line.startswith("| keyboard |"))
    drop = keyboard["drop_test"]["f1"]
    assert line == (f"| keyboard | keyboard | synthetic | {keyboard['em']:.1f} [{keyboard['em_low']:.1f}, "
                    f"{keyboard['em_high']:.1f}] | {keyboard['f1']:.1f} [{keyboard['f1_low']:.1f}, "
                    f"{keyboard['f1_high']:.1f}] | {drop['difference']:.1f} [{drop['low']:.1f}, {drop['high']:.1f}]"
                    f"{'†' if drop['p_holm'] < 0.05 else ''} | - | - | - |")
    assert markdown.startswith("# Study: accent_study\n") and "| Model | Test set | India |" in markdown
    assert format_cell(None) == "-" and format_cell(12.345) == "12.3" and format_cell(7) == "7"
    assert format_cell(Estimate(12.34, 10.0, 14.56, "†")) == "12.3 [10.0, 14.6]†"
    assert format_cell(PValue(0.0312)) == "0.031" and format_cell(PValue(0.0004)) == "<0.001"


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


def test_tex_tables_are_balanced_and_escaped(results):
    tex = results_tex(results)
    assert tex.count(r"\begin{table}") == 13 == tex.count(r"\end{tabular}")  # with the validation curves
    for block in re.findall(r"\\begin\{tabular\}\{([lr]+)\}(.*?)\\end\{tabular\}", tex, re.S):
        columns, body = block
        for line in body.strip().splitlines():
            if line.endswith(r"\\") and r"\multicolumn" not in line:
                assert line.count(" & ") == len(columns) - 1, line
    assert r"accent\_audio\_like (via accent)" in tex and "accent_audio_like" not in tex.replace(r"\_", "")
    assert r"\multicolumn{3}{c}{tiny}" in tex and r"\cmidrule(lr){4-6}" in tex and r"$\Delta$F1" in tex
    assert tex_escape("50% & $x_1#") == r"50\% \& \$x\_1\#"
    assert tex_escape("1.0 [0.5, 2.0]† <0.001 →") == r"1.0 [0.5, 2.0]$^\dagger$ $<$0.001 $\rightarrow$"
    assert "†" not in tex and "→" not in tex


def test_a_comparison_without_shared_questions_says_so(results):
    found = copy.deepcopy(results)
    found["cross_comparisons"] = [{"label": "apart", "first": {"model": "tiny", "set": "clean"},
                                   "second": {"model": "twin", "set": "accent"}, "questions": 0, "em": None, "f1": None}]
    table = next(t for t in results_tables(found) if t.name == "cross_comparisons")
    assert table.rows == [["apart", "tiny on clean", "twin on accent", 0, "no shared questions", None, None,
                           "no shared questions", None, None]]
    assert "| apart | tiny on clean | twin on accent | 0 | no shared questions | - |" in results_markdown(found)
    assert "cross_comparisons" not in [t.name for t in results_tables(results)]


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
