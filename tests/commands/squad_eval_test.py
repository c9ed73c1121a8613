import argparse
import json
import os

import pytest

from srcframework.commands.squad_eval import load_predictions, run
from srcframework.data.errors import DatasetError
from tests.conftest import FIXTURES


def args(predictions, output_file=None):
    return argparse.Namespace(
        data_file=str(FIXTURES / "squad_tiny.json"), predictions_file=str(predictions), output_file=output_file
    )


def test_official_format(tmp_path, capsys):
    gold = {"q1": "1882", "q2": "the engineer Ossia", "q5": "wrong"}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(gold))
    out = tmp_path / "score.json"
    result = run(args(path, str(out)))
    printed = json.loads(capsys.readouterr().out)
    assert printed == result == json.loads(out.read_text())
    assert (result["questions"], result["unanswered"], result["unknown_ids"]) == (9, 6, 0)
    assert result["exact_match"] == pytest.approx(100 / 9)
    assert result["f1"] == pytest.approx(100 * (1 + 0.5) / 9)  # "engineer ossia" vs "ossia brandt": P = R = 1/2


def test_predict_json_lines_format(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "q1", "best_span_str": "1882"}\n{"id": "q2", "best_span_str": "x"}\n')
    assert load_predictions(str(path)) == {"q1": "1882", "q2": "x"}


@pytest.mark.parametrize("content, message", [("[1, 2\n", "line 1"), ('{"q1": 3}', "int 3, not a string")])
def test_bad_predictions_file(tmp_path, content, message):
    path = tmp_path / "p.json"
    path.write_text(content)
    with pytest.raises(DatasetError, match=message):
        load_predictions(str(path))


def tiny_data():
    return json.loads((FIXTURES / "squad_tiny.json").read_text())


def write_json(path, payload):
    path.write_text(json.dumps(payload))
    return path


def test_counts_unanswered_questions_on_stderr(tmp_path, capsys):
    path = write_json(tmp_path / "p.json", {"q1": "1882", "q2": "Ossia Brandt", "nowhere": "x"})
    result = run(args(path))
    assert (result["questions"], result["unanswered"], result["unknown_ids"]) == (9, 7, 1)
    err = capsys.readouterr().err
    assert f"{path}: 7 of 9 questions of" in err and "1 prediction ids are not questions" in err


@pytest.mark.parametrize("content, message", [
    ("", "the predictions file is empty"),
    ("  \n\n", "the predictions file is empty"),
    ("{}", r"holds no predictions \(\{\}\)"),
    ('{"id": "q1", "best_span_str": null}\n', "line 1: best_span_str is NoneType None, not a string"),
    ('{"id": "q1", "best_span_str": ["1882"]}', "line 1: best_span_str is list"),
    ('{"id": "q1", "best_span_str": "a"}\n{"id": "q1", "best_span_str": "b"}\n', "line 2: a second prediction"),
])
def test_bad_predictions_name_the_file(tmp_path, content, message):
    path = tmp_path / "p.json"
    path.write_text(content)
    with pytest.raises(DatasetError, match=message) as error:
        run(args(path))
    assert str(error.value).startswith(str(path))


def test_one_line_predict_output_is_read_as_json_lines(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "q1", "best_span_str": "1882"}\n')
    assert load_predictions(str(path)) == {"q1": "1882"}
    path.write_text('{"id": "q1", "best_span_str": "1882", "best_span": [3, 3]}')  # no newline either
    result = run(args(path))
    assert result["exact_match"] == pytest.approx(100 / 9) and result["unanswered"] == 8


def test_predictions_for_another_data_file(tmp_path):
    path = write_json(tmp_path / "p.json", {"56be4db0acb8001400a502ec": "Denver Broncos"})
    with pytest.raises(DatasetError, match="none of its 1 prediction ids .* is a question of .*squad_tiny.json") as error:
        run(args(path))
    assert str(error.value).startswith(str(path))


def bad_data(tmp_path, change):
    data = tiny_data()
    change(data)
    return write_json(tmp_path / "bad.json", data)


@pytest.mark.parametrize("change, message", [
    (lambda d: d["data"][0]["paragraphs"][0]["qas"][1]["answers"][0].update(text=""), r"\(question id 'q2'\): empty answer text"),
    (lambda d: d["data"][0]["paragraphs"][0]["qas"][1]["answers"][0].update(text=" \t"), r"\(question id 'q2'\): empty answer text"),
    (lambda d: d["data"][1]["paragraphs"][0].pop("qas"), "article 1 .*, paragraph 0 has no 'qas' key"),
    (lambda d: d["data"][1]["paragraphs"][0]["qas"][0].update(id="q1"),
     r"\(question id 'q1'\): duplicate question id: in article 0 .*paragraph 0 and again in article 1"),
])
def test_bad_data_names_the_file_and_question(tmp_path, change, message):
    data_file = bad_data(tmp_path, change)
    predictions = write_json(tmp_path / "p.json", {"q1": "1882"})
    with pytest.raises(DatasetError, match=message) as error:
        run(argparse.Namespace(data_file=str(data_file), predictions_file=str(predictions), output_file=None))
    assert str(error.value).startswith(str(data_file))


@pytest.mark.parametrize("where", ["missing/score.json", "readonly/score.json", "a_folder"])
def test_unwritable_output_fails_before_any_work(tmp_path, where, capsys):
    (tmp_path / "readonly").mkdir()
    (tmp_path / "readonly").chmod(0o500)
    (tmp_path / "a_folder").mkdir()
    predictions = tmp_path / "p.json"  # never read: the output is checked first
    from allennlp.common.checks import ConfigurationError

    try:
        if where.startswith("readonly") and os.access(tmp_path / "readonly", os.W_OK):
            pytest.skip("running as a user that can write in a read-only folder")
        with pytest.raises(ConfigurationError, match="squad-eval --output-file"):
            run(args(predictions, str(tmp_path / where)))
    finally:
        (tmp_path / "readonly").chmod(0o700)
    assert capsys.readouterr().out == ""
