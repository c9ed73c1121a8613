import re
import shutil
import subprocess

import pytest

from srcframework.studies.html_report import report_html
from srcframework.studies.runner import write_outputs
from tests.studies.runner_test import run_accent_study

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def study_dir(tiny_archive, tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("report")
    return out_dir, run_accent_study(out_dir, tiny_archive)


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
    assert re.findall(r'<img src="([^"]+)"', page) == ["f1_by_country.png", "f1_vs_wer.png", "robustness_drop.png"]
    assert '<body data-images-total="3" data-images-loaded="pending">' in page
    assert '<th colspan="3">tiny</th>' in page and "<td>accent_audio_like (via accent)</td>" in page
    keyboard = next(p for p in results["pairs"] if p["model"] == "tiny" and p["set"] == "keyboard")
    assert f'<td class="num">{keyboard["f1"]:.1f}</td>' in page
    assert report_html(results, ["a.png"]).count("<img ") == 1


def test_names_are_escaped():
    results = {"study": "<s>", "models": [{"name": "a&b"}], "test_sets": [], "pairs": []}
    page = report_html(results, [])
    assert "<title>Study: &lt;s&gt;</title>" in page and "Models: a&amp;b." in page


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)")
def test_images_render_in_headless_chromium(study_dir, tmp_path):
    out_dir, _ = study_dir
    assert loaded_images(out_dir / "report.html") == ("3", "3")
    for name in ("report.html", "f1_by_country.png", "f1_vs_wer.png"):  # robustness_drop.png left out
        shutil.copy(out_dir / name, tmp_path / name)
    assert loaded_images(tmp_path / "report.html") == ("2", "3")


def test_write_outputs_lists_the_files(study_dir, tmp_path):
    _, results = study_dir
    names = write_outputs(results, str(tmp_path))
    assert names == ["results.json", "results.md", "results.csv", "results.tex", "f1_by_country.png", "f1_vs_wer.png",
                     "robustness_drop.png", "report.html"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)
