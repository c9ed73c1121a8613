import json
import os
import re

import pytest
from allennlp.predictors import Predictor

from tests.conftest import FIXTURES, run_allennlp


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
    for line in ({"context": "Some text.", "question": "What?", "audio": "q.wav"}, {"context": "Some text.", "audio": "q.wav"}):
        with pytest.raises(ValueError, match="this model reads typed questions: give the question as 'question', not 'audio'"):
            predictor.predict_json(line)


def test_passage_is_taken_for_context_as_allennlp_models_names_it(tiny_archive):
    predictor = Predictor.from_path(tiny_archive, "span_qa")
    context = "The harbour of Velmont was dredged in 1882 by the engineer Ossia Brandt."
    named = predictor.predict_json({"passage": context, "question": "When was it dredged?", "id": "p"})
    assert named == predictor.predict_json({"context": context, "question": "When was it dredged?", "id": "p"})
    with pytest.raises(ValueError, match="gives both 'context' and 'passage' \\(the same thing\\): give one"):
        predictor.predict_json({"passage": context, "context": context, "question": "When?"})
    with pytest.raises(ValueError, match="needs a non-empty string 'context' \\(or 'passage'\\); got keys \\['question', 'text'\\]"):
        predictor.predict_json({"text": context, "question": "When?"})


@pytest.mark.parametrize("line, message", [
    ('{"question": "When?"', "error: input line 2 is not JSON: expecting ',' delimiter at column 21"),
    ('["When?", "Some text."]', "error: input line 2 is a JSON list, not an object with 'context' and 'question'"),
    ('{"question": "When?", "text": "Some text."}',
     "error: input line 2: needs a non-empty string 'context' (or 'passage'); got keys ['question', 'text']"),
    ('{"passage": "Some text.", "audio": "q.wav"}',
     "error: input line 2: this model reads typed questions: give the question as 'question', not 'audio'"),
    ('{"id": "a", "passage": "Some text.", "question": "Again?"}',
     "error: question id 'a' is answered twice; the official predictions file {official} holds one answer per id"),
])
def test_every_bad_input_line_is_one_line_from_allennlp_predict(tiny_archive, tmp_path, line, message):
    inputs = tmp_path / "input.jsonl"
    inputs.write_text(json.dumps({"id": "a", "passage": CONTEXT, "question": "When?"}) + "\n\n" + line + "\n")
    official = tmp_path / "official.json"
    done = run_allennlp("predict", str(tiny_archive), str(inputs), "--predictor", "span_qa", "--batch-size", "1",
                        "--output-file", str(tmp_path / "p.jsonl"),
                        "--predictor-args", json.dumps({"official_predictions_file": str(official)}))
    assert done.returncode == 1
    log = re.compile(r"^\d{4}-\d\d-\d\d [\d:,]+ - (INFO|WARNING) - ")  # AllenNLP's log of loading the archive
    assert [text for text in done.stderr.splitlines() if not log.match(text)] == [message.format(official=official)]
    assert len((tmp_path / "p.jsonl").read_text().splitlines()) == 1  # the first line was answered


def test_a_model_that_hears_its_questions_takes_an_audio_file(tiny_archive, tmp_path):
    from srcframework.data.dataset_readers.squad_src import SquadSrcReader
    from srcframework.predictors.span_qa import SpanQAPredictor

    predictor = SpanQAPredictor(Predictor.from_path(tiny_archive, "span_qa")._model, SquadSrcReader())
    with pytest.raises(ValueError, match="this model hears its questions: give an audio file as a non-empty string 'audio'"):
        predictor.predict_json({"context": "Some text.", "question": "What?"})
    with pytest.raises(ValueError, match="audio file '.*missing.wav' not found"):
        predictor.predict_json({"context": "Some text.", "audio": str(tmp_path / "missing.wav")})


def official_run(archive, tmp_path, lines, *extra):
    """`allennlp predict` on JSON lines, with an official predictions file."""
    inputs = tmp_path / "input.jsonl"
    inputs.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    official = tmp_path / "out" / "official.json"
    done = run_allennlp("predict", str(archive), str(inputs), "--predictor", "span_qa", "--batch-size", "1", "--silent",
                        "--output-file", str(tmp_path / "p.jsonl"),
                        "--predictor-args", json.dumps({"official_predictions_file": str(official)}), *extra)
    return done, official


CONTEXT = "The harbour of Velmont was dredged in 1882 by the engineer Ossia Brandt."
GOOD = [{"id": f"q{k}", "context": CONTEXT, "question": question}
        for k, question in enumerate(["When was it dredged?", "Who dredged it?", "What was dredged?"])]


def test_official_predictions_file_appears_only_when_the_run_is_complete(tiny_archive, tmp_path):
    (tmp_path / "out").mkdir()
    stale = tmp_path / "out" / "official.json"
    stale.write_text('{"old": "answers of an earlier run"}')
    # the fourth line is bad: the run stops there, after three answered questions
    done, official = official_run(tiny_archive, tmp_path, GOOD + [{"id": "q3", "context": CONTEXT}])
    assert done.returncode != 0 and "non-empty string 'question'" in done.stderr
    assert len((tmp_path / "p.jsonl").read_text().splitlines()) == 3  # allennlp's own file has the three
    assert os.listdir(tmp_path / "out") == []  # no official file, no stale one, no temporary one
    done, official = official_run(tiny_archive, tmp_path, GOOD)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [json.loads(line) for line in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert json.loads(official.read_text()) == {line["id"]: line["best_span_str"] for line in lines}
    assert sorted(json.loads(official.read_text())) == ["q0", "q1", "q2"]
    assert os.listdir(tmp_path / "out") == ["official.json"]


def test_a_missing_official_folder_is_an_error_before_predicting(tiny_archive, tmp_path):
    from allennlp.common.checks import ConfigurationError

    with pytest.raises(ConfigurationError, match="official predictions file .*/nowhere/p.json: the folder .* does not exist"):
        Predictor.from_path(tiny_archive, "span_qa", official_predictions_file=str(tmp_path / "nowhere" / "p.json"))


def test_official_predictions_written_on_request_and_ids_answered_once(tiny_archive, tmp_path):
    official = tmp_path / "predictions.json"
    predictor = Predictor.from_path(tiny_archive, "span_qa", official_predictions_file=str(official))
    instances = list(predictor._dataset_reader.read(FIXTURES / "squad_tiny.json"))
    outputs = predictor.predict_batch_instance(instances[:3])
    for output in outputs:
        predictor.dump_line(output)
    assert not official.exists()  # nothing before the run says it is complete
    assert predictor.write_official_predictions() == str(official)
    assert json.loads(official.read_text()) == {o["id"]: o["best_span_str"] for o in outputs}
    with pytest.raises(ValueError, match=rf"question id '{outputs[0]['id']}' is answered twice"):
        predictor.dump_line(outputs[0])
