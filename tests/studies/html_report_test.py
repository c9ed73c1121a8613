import json
import re
import shutil
import subprocess

import pytest

from srcframework.studies.html_report import report_html
from srcframework.studies.plots import PLOT_NAMES

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def study_dir(accent_study_dir):
    return accent_study_dir, json.loads((accent_study_dir / "results.json").read_text())


def loaded_images(page) -> tuple:
    """(loaded, total) as the page's script reports them in headless Chromium."""
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "--virtual-time-budget=5000",
               page.resolve().as_uri()]
    dom = subprocess.run(command, capture_output=True, text=True, timeout=120).stdout
    body = re.search(r"<body[^>]*>", dom).group(0)
    return re.search(r'data-images-loaded="([^"]*)"', body).group(1), re.search(r'data-images-total="(\d+)"', body).group(1)


def test_report_holds_the_tables_and_relative_images(study_dir):
    out_dir, results = study_dir
    page = (out_dir / "report.html").read_text(encoding="utf-8")
    for table in ("em_f1", "f1_by_country", "f1_by_gender", "question_noise", "wer_by_country"):
        assert f'<table id="{table}">' in page
    assert re.findall(r'<img src="([^"]+)"', page) == list(PLOT_NAMES)
    assert '<body data-images-total="5" data-images-loaded="pending">' in page
    assert '<th colspan="3">tiny</th>' in page and "<td>accent_audio_like (via accent)</td>" in page
    keyboard = next(p for p in results["pairs"] if p["model"] == "tiny" and p["set"] == "keyboard")
    assert f'<td class="num">{keyboard["f1"]:.1f} [{keyboard["f1_low"]:.1f}, {keyboard["f1_high"]:.1f}]</td>' in page
    for table in ("drop_tests", "model_comparisons", "flips", "f1_by_question_type", "f1_by_length", "f1_by_wer_bucket"):
        assert f'<table id="{table}">' in page
    assert "paired approximate randomisation test (10000 rounds, contexts flipped together)" in page
    assert "p (Holm) &lt; 0.05 (only the corrected p marks a difference)" in page
    assert report_html(results, ["a.png"]).count("<img ") == 1


def test_breakdown_scores_show_their_question_counts_and_few_are_greyed_out(study_dir):
    from srcframework.studies.html_report import FEW_QUESTIONS

    _, results = study_dir
    page = report_html(results, [])
    pair = next(p for p in results["pairs"] if p.get("by_question_type"))
    label, group = next(iter(pair["by_question_type"].items()))
    table = re.search(r'<table id="f1_by_question_type">.*?</table>', page, re.S).group(0)
    few = " few" if group["count"] < FEW_QUESTIONS else ""
    assert f'<td class="num{few}">{group["f1"]:.1f}<span class="n">n={group["count"]}</span></td>' in table
    country, scores = next((c, g) for p in results["pairs"] for c, g in p["by_country"].items())
    assert f'<span class="n">n={scores["count"]}</span>' in re.search(
        r'<table id="f1_by_country">.*?</table>', page, re.S).group(0)
    assert f"greyed out: fewer than {FEW_QUESTIONS}" in page
    assert '<span class="n">' not in re.search(r'<table id="em_f1">.*?</table>', page, re.S).group(0)


def test_a_small_cell_is_greyed_out_and_a_firm_one_is_not():
    from srcframework.studies.html_report import FEW_QUESTIONS, html_table
    from srcframework.studies.cells import Table

    table = Table("t", "T", ["Model", "why", "what"], [["m", 0.0, 71.25]], 1, counts=[[None, 2, FEW_QUESTIONS]])
    html = html_table(table)
    assert '<td class="num few">0.0<span class="n">n=2</span></td>' in html
    assert f'<td class="num">71.2<span class="n">n={FEW_QUESTIONS}</span></td>' in html


def test_a_study_without_figures_has_no_figures_section():
    results = {"study": "s", "models": [{"name": "m"}], "test_sets": [], "pairs": []}
    page = report_html(results, [])
    assert "<h2>Figures</h2>" not in page and 'data-images-total="0"' in page


def test_names_are_escaped():
    results = {"study": "<s>", "models": [{"name": "a&b"}], "test_sets": [], "pairs": []}
    page = report_html(results, [])
    assert "<title>Study: &lt;s&gt;</title>" in page and "Models: a&amp;b." in page


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)")
def test_images_render_in_headless_chromium(study_dir, tmp_path):
    out_dir, _ = study_dir
    assert loaded_images(out_dir / "report.html") == ("5", "5")
    for name in ("report.html",) + PLOT_NAMES[:-1]:  # the last figure left out
        shutil.copy(out_dir / name, tmp_path / name)
    assert loaded_images(tmp_path / "report.html") == ("4", "5")


def test_example_flips_list_both_questions_answers_and_predictions():
    example = {"id": "q1", "clean_question": "Who dredged <the> harbour?", "noisy_question": "Who dreged the harbour?",
               "answers": ["Ossia Brandt", "Brandt"], "clean_prediction": "Ossia Brandt", "noisy_prediction": None}
    results = {"study": "s", "models": [{"name": "m"}], "test_sets": [], "pairs": [],
               "examples": [{"model": "m", "set": "keyboard", "reference": "clean", "right_to_wrong": [example],
                             "wrong_to_right": []},
                            {"model": "m", "set": "asr", "reference": "clean", "right_to_wrong": [],
                             "wrong_to_right": []}]}
    page = report_html(results, [])
    assert "<h2>Example flips</h2>" in page and "Right: exact match 1." in page
    assert "<h3>m on keyboard (against clean)</h3>" in page and "m on asr" not in page  # no flips, no table
    row = re.search(r'<table class="examples" id="examples-m-keyboard">.*?<tbody>\n(<tr>.*?</tr>)', page, re.S).group(1)
    assert re.findall(r"<td>(.*?)</td>", row) == [
        "right on the clean set, wrong on this one", "Who dredged &lt;the&gt; harbour?", "Who dreged the harbour?",
        "Ossia Brandt | Brandt", "Ossia Brandt", "(no answer)",
    ]
    assert "Example flips" not in report_html(dict(results, examples=[]), [])
