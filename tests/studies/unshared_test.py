"""A robustness group or a comparison whose pairs share no question says so: in its table and on
stderr, with the `reference` that usually fixes it."""
import io
import json

from srcframework.metrics.statistics import Resampler
from srcframework.studies.question_scores import PairScores
from srcframework.studies.results_markdown import markdown_table
from srcframework.studies.robustness import robustness
from srcframework.studies.runner import run_study
from srcframework.studies.study import study_from_dict
from srcframework.studies.test_tables import model_comparisons_table, robustness_table
from srcframework.studies.unshared import say_unshared, unshared_rows
from tests.conftest import FIXTURES
from tests.studies.robustness_test import make_scores, results

TINY = str(FIXTURES / "squad_tiny.json")
TINY_KEYBOARD = str(FIXTURES / "squad_tiny_keyboard.json")


def unshared_results() -> dict:
    """The robustness fixture with the plain model's asr set drawn from another question pool."""
    data = results()
    scores = make_scores(data)
    moved = scores[("plain", "asr")]
    scores[("plain", "asr")] = PairScores("plain", "asr", [f"x{i}" for i in moved.ids], moved.em, moved.f1, {})
    data["robustness"], _ = robustness(data, scores, Resampler(100))
    return data


def test_a_robustness_group_without_shared_questions_says_so_in_its_table_and_on_stderr():
    data = unshared_results()
    table = robustness_table(data)
    empty = [row for row in table.rows if row[3] == 0]  # the held-out group (asr) and all noisy sets
    assert [row[2] for row in empty] == ["held-out generator (primary): asr", "all noisy sets: asr, typo, odd"]
    assert all(row[4] == row[6] == "no shared questions" and row[5] is None for row in empty)
    assert all(row[4] != "no shared questions" for row in table.rows if row[3])
    assert any(note.startswith("no shared questions: no question id is held by every pair") for note in table.notes)
    assert "| robust | plain | held-out generator (primary): asr | 0 | no shared questions | - | no shared questions |" \
        in markdown_table(table)
    stream = io.StringIO()
    line, _ = say_unshared(data, stream)
    assert stream.getvalue().splitlines()[0] == f"warning: {line}"
    assert line.startswith("robustness of robust against plain, held-out generator (asr): no question id is held by "
                           "every pair of the group") and "`reference`" in line


def test_comparisons_without_shared_questions_say_so():
    data = {"comparisons": [{"set": "asr", "first": "robust", "second": "plain", "questions": 0, "em": None, "f1": None}],
            "cross_comparisons": [{"label": "apart", "first": {"model": "e2e", "set": "spoken"},
                                   "second": {"model": "bidaf", "set": "typed"}, "questions": 0, "em": None, "f1": None}]}
    assert model_comparisons_table(data).rows[0][4] == "no shared questions"
    versus, cross = unshared_rows(data)
    assert versus == "comparison of robust and plain on asr: no question both answered"
    assert cross.startswith("comparison 'apart' (e2e on spoken against bidaf on typed): the two sets share no question id")
    assert unshared_rows({"comparisons": [dict(data["comparisons"][0], questions=3)]}) == []


def test_a_study_whose_noisy_set_comes_from_another_pool_says_why_its_row_is_empty(tiny_archive, tmp_path, capsys):
    other_pool = json.loads(open(TINY_KEYBOARD, encoding="utf-8").read())
    for article in other_pool["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                qa["id"] = "other-" + qa["id"]
    pool = tmp_path / "other_pool.json"
    pool.write_text(json.dumps(other_pool))
    raw = {
        "models": {"plain": {"archive": str(tiny_archive), "batch_size": 9},
                   "robust": {"archive": str(tiny_archive), "batch_size": 9, "twin": "plain"}},
        "test_sets": {"clean": {"data": TINY, "interface": "clean", "kind": "natural"},
                      "typos": {"data": str(pool), "interface": "keyboard", "kind": "synthetic"}},
    }
    run_study(study_from_dict(raw, "pools.json"), str(tmp_path / "out"), progress=False)
    found = json.loads((tmp_path / "out" / "results.json").read_text())
    assert found["robustness"][0]["groups"][0]["questions"] == 0
    assert "| robust | plain | all noisy sets (primary): typos | 0 | no shared questions |" in (tmp_path / "out" / "results.md").read_text()
    assert "warning: robustness of robust against plain, all noisy sets (typos): no question id is held" in capsys.readouterr().err
