import json

import pytest

from srcframework.common.errors import InputError
from srcframework.studies.markdown_into import DEFAULT_TABLES, find_blocks, main, markdown_into

RESULTS = {
    "study": "study.jsonnet",
    "models": [{"name": "bidaf"}],
    "test_sets": [
        {"name": "clean", "interface": "clean", "kind": "natural"},
        {"name": "keyboard", "interface": "keyboard", "kind": "synthetic",
         "question_noise": {"questions": 10, "changed": 8, "cer": 4.5, "wer": 25.8, "bleu": 50.0}},
    ],
    "pairs": [
        {"model": "bidaf", "set": "clean", "reference": None, "em": 21.0, "f1": 32.1, "questions": 10},
        {"model": "bidaf", "set": "keyboard", "reference": "clean", "em": 16.1, "f1": 25.8, "f1_drop": 6.3, "questions": 10},
    ],
}
README = "# Recipe\n\nBefore.\n\n<!-- results:study -->\nNot yet run here.\n<!-- /results:study -->\n\nAfter.\n"


@pytest.fixture
def recipe(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results.json").write_text(json.dumps(RESULTS))
    (tmp_path / "README.md").write_text(README)
    return tmp_path


def test_the_block_is_replaced_by_the_tables_and_the_rest_kept(recipe):
    assert markdown_into("results.json", "README.md") == "study"
    text = (recipe / "README.md").read_text()
    before, rest = text.split("<!-- results:study -->\n")
    block, after = rest.split("<!-- /results:study -->\n")
    assert before == "# Recipe\n\nBefore.\n\n" and after == "\nAfter.\n"
    assert block.startswith("<!-- source: results.json -->\nGenerated from [results.json](results.json) (study `study.jsonnet`)"
                            " by `python -m srcframework.studies.markdown_into results.json README.md`")
    assert "| keyboard | keyboard | synthetic | 16.1 | 25.8 | 6.3 |" in block
    assert "**Question noise by test set**" in block and "Not yet run here" not in block
    [found] = find_blocks(text)
    assert found.source == "results.json" and found.tables == DEFAULT_TABLES
    # a second run changes nothing
    markdown_into("results.json", "README.md")
    assert (recipe / "README.md").read_text() == text


def test_the_marker_chooses_the_tables_and_a_block_by_name(recipe):
    two = README + "<!-- results:noise tables=question_noise -->\n<!-- /results:noise -->\n"
    (recipe / "README.md").write_text(two)
    with pytest.raises(InputError, match="README.md: 2 results blocks \\(study, noise\\); name one with --name"):
        markdown_into("results.json", "README.md")
    markdown_into("results.json", "README.md", name="noise")
    [study, noise] = find_blocks((recipe / "README.md").read_text())
    assert study.content == "Not yet run here.\n" and noise.source == "results.json"
    assert "Question noise" in noise.content and "EM / F1" not in noise.content


@pytest.mark.parametrize("readme, message", [
    ("<!-- results:x -->\n", "README.md: results block 'x' has no closing <!-- /results:x --> line"),
    ("<!-- results:x tables=nope -->\n<!-- /results:x -->\n", "README.md: results block 'x': unknown table 'nope'; the tables are em_f1"),
    ("<!-- results:x colour=red -->\n<!-- /results:x -->\n", "unknown marker option 'colour'"),
    ("<!-- results:x -->\n<!-- /results:x -->\n" * 2, "results block 'x' appears more than once"),
    ("no block\n", "README.md: 0 results blocks \\(none\\)"),
])
def test_bad_markers_are_one_line_errors(recipe, readme, message):
    (recipe / "README.md").write_text(readme)
    with pytest.raises(InputError, match=message):
        markdown_into("results.json", "README.md")


def test_the_command_line_reports_errors_in_one_line(recipe, capsys):
    assert main(["missing.json", "README.md"]) == 1
    assert capsys.readouterr().err == "error: missing.json: results file not found\n"
    (recipe / "bad.json").write_text("[1, 2]")
    assert main(["bad.json", "README.md"]) == 1
    assert "not a study's results.json" in capsys.readouterr().err
    assert main(["results.json", "README.md", "--name", "other"]) == 1
    assert "no results block 'other'" in capsys.readouterr().err
    assert main(["results.json", "README.md"]) == 0
    assert "results block 'study' written from results.json" in capsys.readouterr().out


@pytest.mark.slow
def test_the_command_every_block_names_runs_without_a_warning():
    # `python -m` warns where importing srcframework has already imported the module it runs
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "srcframework.studies.markdown_into", "--help"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "usage: python -m srcframework.studies.markdown_into" in done.stdout
    assert "RuntimeWarning" not in done.stderr, done.stderr
