import json

import pytest

from srcframework.common.errors import InputError
from srcframework.studies.inference_tables import (
    drop_by_set_table,
    power_table,
    seed_tests_table,
    set_groups_table,
    validation_curves_table,
    variance_components_table,
)
from srcframework.studies.markdown_into import find_blocks, markdown_into
from srcframework.studies.cells import format_cell
from srcframework.studies.results_markdown import markdown_table
from tests.conftest import ROOT

COMMITTED = ROOT / "recipes" / "robust_training" / "results.json"


def committed() -> dict:
    return json.loads(COMMITTED.read_text())


def cells(table, row):
    return [format_cell(cell) for cell in table.rows[row]]


def test_each_interval_says_what_it_is_over():
    results = committed()
    seeds = seed_tests_table(results)
    assert seeds.notes[0].startswith("Interval over the training runs") and "held fixed" in seeds.notes[0]
    primary = cells(seeds, 0)
    assert primary[2].startswith("drop difference, held-out generator (primary)")
    assert primary[4:7] == ["1.7 / 4.7 / 4.8", "3.7 [-0.6, 8.1]", "0.066"]
    clean = cells(seeds, len(seeds.rows) - 1)
    assert clean[2] == "clean F1 change (clean)" and clean[5] == "0.9 [-3.8, 5.7]" and clean[8] == "0.323"
    groups = set_groups_table(results)
    assert "bootstrap over the paragraphs" in groups.notes[1] and "Interval over the training runs" in groups.notes[2]
    unseen = cells(groups, 0)
    assert unseen[2].startswith("unseen generator") and unseen[7] == "0.9" and unseen[10] == "0.9 [-1.5, 3.3]"
    assert "Interval over both the training runs and the test questions" in variance_components_table(results).notes[1]


def test_a_group_computed_from_predictions_shows_its_paragraph_interval():
    results = committed()
    group = results["robustness"][0]["set_groups"][0]
    group["drop_test"] = {"difference": 0.9, "low": -0.2, "high": 2.1, "p": 0.01, "p_holm": 0.03, "significant": True}
    assert cells(set_groups_table(results), 0)[7] == "0.9 [-0.2, 2.1]†"


def test_variance_components_rows():
    results = committed()
    results["robustness"][0]["groups"][0]["variance_components"] = {
        "estimate": 3.7, "low": -1.0, "high": 8.4, "df": 2.3, "seeds": 3, "questions": 1190, "paragraphs": 240,
        "share_seeds": 0.9, "share_questions": 0.1, "converged": False,
        "components": {"seed": 4.0, "paragraph": 1.0, "question": 9.0, "seed_question": 400.0},
    }
    table = variance_components_table(results)
    [row] = table.rows
    assert format_cell(row[2]).endswith("(the fit did not converge)")
    assert [format_cell(c) for c in row[3:]] == ["3", "1190", "240", "3.7 [-1.0, 8.4]", "2.3", "2.0", "1.0", "3.0",
                                                 "20.0", "90.0", "10.0"]


def test_per_set_power_and_curves():
    results = committed()
    by_set = drop_by_set_table(results)
    keyboard = next(row for row in by_set.rows if row[0] == "bidaf_augmented" and row[2] == "noiseqa_keyboard")
    assert format_cell(keyboard[-1]) == "83.7" and keyboard[4] == "held-out generator (primary)"
    power = power_table(results)
    assert power.title == "Power (retrospective)"
    first = [format_cell(c) for c in power.rows[0]]
    assert first[3:8] == ["equivalence within +-1.5 (TOST)", "independent arms (seeds per arm)", "3 / 3", "1.5", "19 [8, 146]"]
    assert any("two ends of the between-seed SD's 95% interval (chi-square" in note for note in power.notes)
    curves = validation_curves_table(results)
    assert curves.header[-1] == "Epoch 6" and len(curves.rows) == 8
    assert any(note.startswith("Source: transcribed on 2026-12-02") for note in curves.notes)
    assert [format_cell(c) for c in curves.rows[3][3:]] == ["18.2", "28.1", "45.7", "54.4", "53.4", "53.9"]
    assert markdown_table(curves).count("\n") == 9


def test_a_docs_block_names_its_source_without_a_link(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results.json").write_text(COMMITTED.read_text())
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "page.md"
    page.write_text("# P\n\n<!-- results:a tables=power link=none -->\n<!-- /results:a -->\n\n"
                    "<!-- results:b tables=validation_curves -->\n<!-- /results:b -->\n")
    assert markdown_into("results.json", "docs/page.md", "a") == "a"
    assert markdown_into("results.json", "docs/page.md", "b") == "b"
    blocks = {block.name: block for block in find_blocks(page.read_text())}
    assert blocks["a"].content.startswith("<!-- source: ../results.json -->\nGenerated from `results.json` (study")
    assert "markdown_into results.json docs/page.md --name a`" in blocks["a"].content
    assert "Generated from [../results.json](../results.json)" in blocks["b"].content
    page.write_text("<!-- results:a link=yes -->\n<!-- /results:a -->\n")
    with pytest.raises(InputError, match="link=yes: the only value is link=none"):
        markdown_into("results.json", "docs/page.md")
