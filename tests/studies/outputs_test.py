import copy

from srcframework.studies.outputs import write_outputs
from srcframework.studies.plots import PLOT_NAMES


def test_write_outputs_lists_the_files(results, tmp_path):
    names = write_outputs(results, str(tmp_path))
    assert names == ["results.json", "results.md", "results.csv", "results.tex", *PLOT_NAMES, "report.html"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)


def test_a_study_without_per_country_scores_has_no_country_figure(results, tmp_path):
    write_outputs(results, str(tmp_path))
    plain = copy.deepcopy(results)
    for pair in plain["pairs"]:
        pair["by_country"] = {}
    names = write_outputs(plain, str(tmp_path))
    assert "f1_by_country.png" not in names and not (tmp_path / "f1_by_country.png").exists()  # the old one removed
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "f1_by_country.png" not in page and "F1 by country" not in page
