import json

import pytest
import torch

from srcframework.data.errors import DatasetError
from srcframework.metrics.records import (
    GROUP_KEYS,
    PREDICTION_LINE_KEYS,
    missing_output_keys,
    prediction_line,
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
