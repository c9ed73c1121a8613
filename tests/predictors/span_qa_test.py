import json

import pytest
from allennlp.predictors import Predictor

from tests.conftest import FIXTURES


def test_predicts_json_lines_input(tiny_archive):
    predictor = Predictor.from_path(tiny_archive, "span_qa")
    context = "The harbour of Velmont was dredged in 1882 by the engineer Ossia Brandt."
    output = predictor.predict_json({"context": context, "question": "When was it dredged?", "id": "z"})
    assert output["id"] == "z"
    assert output["best_span_str"] in context
    line = json.loads(predictor.dump_line(output))
    # no gold answers and no groups; None values are left out, never written as "None"
    assert set(line) == {"id", "best_span_str", "best_span", "answers", "groups", "question"}
    assert line["question"] == "When was it dredged?"
    assert line["answers"] == [] and line["groups"] == {}


def test_bad_input_line_is_a_clear_error(tiny_archive):
    predictor = Predictor.from_path(tiny_archive, "span_qa")
    with pytest.raises(ValueError, match="non-empty string 'question'"):
        predictor.predict_json({"context": "Some text."})


def test_official_predictions_file_is_valid_json_after_each_line(tiny_archive, tmp_path):
    official = tmp_path / "predictions.json"
    predictor = Predictor.from_path(tiny_archive, "span_qa", official_predictions_file=str(official))
    assert json.loads(official.read_text()) == {}
    instances = list(predictor._dataset_reader.read(FIXTURES / "squad_tiny.json"))
    answers = {}
    for output in predictor.predict_batch_instance(instances[:3]):
        predictor.dump_line(output)
        answers[output["id"]] = output["best_span_str"]
        assert json.loads(official.read_text(encoding="utf-8")) == answers
    assert len(answers) == 3
