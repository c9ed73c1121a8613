import json

import pytest
import torch

from srcframework.data.errors import DatasetError
from srcframework.metrics.records import (
    GROUP_KEYS,
    OUTPUT_KEYS,
    PREDICT_KEYS,
    PREDICTION_LINE_KEYS,
    load_predictions,
    missing_output_keys,
    prediction_line,
    predict_lines,
    prediction_record,
    question_groups,
    question_noise,
    read_records,
    record_from_output,
    records_from_predictions,
)


def test_question_groups_come_from_the_metadata_or_its_extra_fields():
    meta = {"speaker": "SPK009", "extra": {"country": "US", "gender": "M", "title": "x"}}
    assert question_groups(meta) == {"speaker": "SPK009", "country": "US", "gender": "M"}
    assert question_groups({"id": "q"}) == {}
    assert set(GROUP_KEYS) == {"country", "gender", "speaker"}


def test_a_record_from_a_model_output_is_plain_and_has_every_field():
    output = {"id": "q1", "best_span_str": "Denver", "answers": ["Denver Broncos"], "best_span": torch.tensor([3, 4]),
              "groups": {"country": "US"}, "question": "who won?", "original_question": None}
    record = record_from_output(output)
    assert record == prediction_record("q1", "Denver", ["Denver Broncos"], {"country": "US"}, "who won?", None)
    assert list(record) == ["id", "prediction", "answers", "groups", "question", "original_question"]
    assert list(prediction_record("q1", None, ["a"], fid="DEV000001")) == ["id", "fid", "prediction", "answers",
                                                                          "groups", "question", "original_question"]
    assert missing_output_keys({"id": "q"}) == ["best_span_str", "answers"]


def test_predictor_lines_read_back_as_records(tmp_path):
    line = prediction_line({"id": "q1", "best_span_str": "b", "answers": ["b"], "question": "None", "extra": 1})
    assert list(line) == list(PREDICTION_LINE_KEYS)
    path = tmp_path / "predictions.jsonl"
    path.write_text(json.dumps(line) + "\n\n")
    assert records_from_predictions(path) == [prediction_record("q1", "b", ["b"])]
    written = tmp_path / "records.jsonl"
    written.write_text(json.dumps(prediction_record("q1", "b", ["b"])) + "\n")
    assert read_records(str(written)) == [prediction_record("q1", "b", ["b"])]
    path.write_text('{"id": "q1"}\n')
    with pytest.raises(DatasetError, match="line 1: missing key"):
        records_from_predictions(path)


def test_question_noise_counts_the_records_with_both_texts():
    records = [
        prediction_record("a", "x", ["x"], question="who wun the game", original_question="Who won the game?"),
        prediction_record("b", "x", ["x"], question="where", original_question="where"),
        prediction_record("c", "x", ["x"], question=None, original_question="when"),
    ]
    noise = question_noise(records)
    assert (noise["questions"], noise["changed"]) == (2, 1)
    assert noise["wer"] == pytest.approx(100.0 / 5)
    assert question_noise(records[2:]) is None


def test_one_reader_serves_the_records_and_the_scoring(tmp_path):
    """The same predict output: a record per line (an id may repeat: several speakers), but one
    prediction per id for scoring."""
    path = tmp_path / "predictions.jsonl"
    lines = [{"id": "q1", "best_span_str": "a", "answers": ["a"], "groups": {"speaker": "S1"}},
             {"id": "q1", "best_span_str": "b", "answers": ["a"], "groups": {"speaker": "S2"}}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert [number for number, _ in predict_lines(path, OUTPUT_KEYS, "x")] == [1, 2]
    assert [r["prediction"] for r in records_from_predictions(path)] == ["a", "b"]
    with pytest.raises(DatasetError, match=r"\(question id 'q1'\): line 2: a second prediction \(the first is on line 1\)"):
        load_predictions(path)
    path.write_text(json.dumps(lines[0]) + "\n")
    assert load_predictions(path) == {"q1": "a"}


def test_predict_lines_require_the_callers_keys(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('\n{"id": "q1", "best_span_str": "a"}\n\n{"id": 7, "best_span_str": null}\n')
    assert predict_lines(path, PREDICT_KEYS, "x") == [(2, {"id": "q1", "best_span_str": "a"}), (4, {"id": 7, "best_span_str": None})]
    with pytest.raises(DatasetError, match=r"line 2: missing key\(s\) \['answers'\]; is this `span_qa` predict output\?"):
        records_from_predictions(path)
    with pytest.raises(DatasetError, match="line 4: best_span_str is NoneType None, not a string"):
        load_predictions(path)  # scoring needs a string; a record takes null as no answer
    path.write_text('{"id": "q1", "best_span_str": "a"}\n[1]\n')
    with pytest.raises(DatasetError, match=r"line 2: expected a JSON object \(an official \{qid: answer\} file or"):
        load_predictions(path)


def test_official_files_and_predict_lines_are_told_apart_by_content(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"id": "q1", "best_span_str": "x"}))  # one predict line, no newline
    assert load_predictions(path) == {"q1": "x"}
    path.write_text(json.dumps({"id": "a question whose id is 'id'", "q2": "y"}, indent=1))
    assert load_predictions(path) == {"id": "a question whose id is 'id'", "q2": "y"}
    path.write_text("{}")
    with pytest.raises(DatasetError, match="holds no predictions"):
        load_predictions(path)
    with pytest.raises(DatasetError, match="cannot read predictions"):
        load_predictions(tmp_path)


@pytest.mark.parametrize("indent", [None, 1], ids=["one line", "pretty-printed"])
def test_a_json_list_of_prediction_rows_says_which_shape_was_expected(tmp_path, indent):
    rows = [{"id": "q1", "best_span_str": "a", "answers": ["a"]}, {"id": "q2", "best_span_str": "b", "answers": ["b"]}]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(rows, indent=indent))
    shape = r"the file is one JSON list \(of 2 dict items\), not JSON lines; expected "
    with pytest.raises(DatasetError, match=shape + r"an official \{qid: answer\} file or `allennlp predict` output: "
                                                   r"one JSON object a line"):
        load_predictions(path)
    with pytest.raises(DatasetError, match=shape + "`span_qa` predict output: one JSON object a line"):
        records_from_predictions(path)
