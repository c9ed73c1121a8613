"""`iter_questions` and `load_squad_json`: what a SQuAD-format file gives, and the problems it can
have, each a DatasetError naming the file and the question (or the article and paragraph)."""
import json
from collections import Counter

import pytest

from srcframework.data.errors import DatasetError
from srcframework.data.squad_file import iter_questions, load_squad_json
from tests.conftest import FIXTURES


def tiny(tmp_path, change):
    data = json.loads((FIXTURES / "squad_tiny.json").read_text())
    change(data)
    path = tmp_path / "data.json"
    path.write_text(json.dumps(data))
    return path


def qas(data, article, paragraph=0):
    return data["data"][article]["paragraphs"][paragraph]["qas"]


def test_duplicate_id_names_the_id_the_file_and_both_places(tmp_path):
    path = tiny(tmp_path, lambda d: qas(d, 2)[0].update(id="q2"))
    with pytest.raises(DatasetError) as error:
        list(iter_questions(path))
    message = str(error.value)
    assert message.startswith(f"{path} (question id 'q2'): duplicate question id")
    assert "in article 0 ('Harbour of Velmont'), paragraph 0 and again in article 2" in message
    assert error.value.qid == "q2"


def test_duplicate_id_in_one_paragraph_is_an_error_even_when_skipping_invalid_questions(tmp_path):
    path = tiny(tmp_path, lambda d: qas(d, 0).append(dict(qas(d, 0)[0])))
    with pytest.raises(DatasetError, match=r"\(question id 'q1'\): duplicate question id"):
        list(iter_questions(path, skip_invalid=True))


@pytest.mark.parametrize("change, message", [
    (lambda d: d["data"][1]["paragraphs"][0].pop("qas"), "article 1 ('{title}'), paragraph 0 has no 'qas' key"),
    (lambda d: d["data"][1]["paragraphs"][0].pop("context"), "article 1 ('{title}'), paragraph 0 has no 'context' key"),
    (lambda d: d["data"][1]["paragraphs"][0].update(qas={"id": "x"}), "article 1 ('{title}'), paragraph 0: \"qas\" must be a list"),
])
def test_a_paragraph_without_qas_names_the_paragraph(tmp_path, change, message):
    path = tiny(tmp_path, change)
    title = json.loads(path.read_text())["data"][1]["title"]
    with pytest.raises(DatasetError) as error:
        list(iter_questions(path))
    assert str(error.value) == f"{path}: " + message.format(title=title)


@pytest.mark.parametrize("text", ["", "   ", "\t\n"])
def test_an_empty_gold_answer_names_the_question(tmp_path, text):
    path = tiny(tmp_path, lambda d: qas(d, 0)[1]["answers"][0].update(text=text))
    with pytest.raises(DatasetError, match=r"\(question id 'q2'\): empty answer text"):
        list(iter_questions(path))


def test_every_question_is_read_with_its_context_answers_title_and_extra_fields(tmp_path):
    def change(d):
        qas(d, 0)[0].update(id=17, speaker="SPK009")  # an integer id is read as a string

    questions = list(iter_questions(tiny(tmp_path, change)))
    assert [q.qid for q in questions] == ["17", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9"]
    first = questions[0]
    assert first.question == "When was the harbour of Velmont dredged?"
    assert (first.answers, first.answer_starts) == (["1882"], [38])
    assert first.context[38:42] == "1882" and first.title == "Harbour of Velmont"
    assert first.extra == {"speaker": "SPK009"} and questions[1].extra == {}


def test_a_dataset_already_loaded_is_not_read_again(tmp_path):
    data = json.loads((FIXTURES / "squad_tiny.json").read_text())
    data["data"] = data["data"][:1]
    missing = tmp_path / "never_written.json"  # only named in messages
    assert [q.qid for q in iter_questions(missing, dataset=data)] == ["q1", "q2", "q3", "q4"]


def test_skip_invalid_counts_each_reason_and_keeps_the_rest(tmp_path):
    def change(d):
        qas(d, 0)[0]["answers"][0]["answer_start"] = 0  # points at "The "
        qas(d, 0)[1]["answers"][0]["answer_start"] = 1
        qas(d, 1)[0]["question"] = " "
        qas(d, 2)[0]["answers"] = []

    path = tiny(tmp_path, change)
    skipped = Counter()
    kept = [q.qid for q in iter_questions(path, skip_invalid=True, skipped=skipped)]
    assert kept == ["q3", "q4", "q6", "q7", "q9"]
    assert skipped == {"answer_start does not match the answer text": 2, "empty question": 1, "no answers": 1}
    with pytest.raises(DatasetError, match=r"\(question id 'q1'\): answer_start 0 points at 'The ', not at the answer '1882'"):
        list(iter_questions(path))


def test_unanswered_questions_are_read_when_answers_are_not_required(tmp_path):
    path = tiny(tmp_path, lambda d: qas(d, 2)[1].update(answers=[]))
    with pytest.raises(DatasetError, match=r"\(question id 'q9'\): no answers"):
        list(iter_questions(path))
    last = list(iter_questions(path, require_answers=False))[-1]
    assert (last.qid, last.answers, last.answer_starts) == ("q9", [], [])


@pytest.mark.parametrize("change, message", [
    (lambda d: qas(d, 0)[0].pop("question"), r"\(question id 'q1'\): missing key\(s\) \['question'\]"),
    (lambda d: qas(d, 0)[0]["answers"][0].update(answer_start="38"), r"\(question id 'q1'\): answer_start '38' is not an integer"),
    (lambda d: qas(d, 0)[0]["answers"][0].update(answer_start=True), "answer_start True is not an integer"),
    (lambda d: qas(d, 0)[0]["answers"][0].pop("text"), 'each answer needs "text" and "answer_start"'),
    (lambda d: qas(d, 0)[0].update(answers={"text": "1882"}), '"answers" must be a list'),
    (lambda d: d["data"][0]["paragraphs"][0].update(context="  "), r"\(question id 'q1'\): empty context"),
    (lambda d: d["data"][1].pop("paragraphs"), 'article 1 has no "paragraphs" list'),
])
def test_a_bad_question_or_article_is_named(tmp_path, change, message):
    path = tiny(tmp_path, change)
    with pytest.raises(DatasetError, match=message) as error:
        list(iter_questions(path))
    assert str(error.value).startswith(str(path))


@pytest.mark.parametrize("content, message", [
    (b'{"data": [', "malformed JSON: expecting value at line 1, column 11"),
    (b'{"version": "1.1"}', 'expected a JSON object with a "data" list'),
    (b'[{"data": []}]', 'expected a JSON object with a "data" list'),
    (b'{"data": [], "title": "caf\xe9"}', r"not valid UTF-8 \(byte 26: b'\\xe9'\)"),
])
def test_load_squad_json_names_the_file_and_the_problem(tmp_path, content, message):
    path = tmp_path / "data.json"
    path.write_bytes(content)
    with pytest.raises(DatasetError, match=message) as error:
        load_squad_json(path)
    assert str(error.value).startswith(f"{path}: ")


def test_load_squad_json(tmp_path):
    assert load_squad_json(FIXTURES / "squad_tiny.json")["version"] == "1.1"
    with pytest.raises(DatasetError, match="absent.json: file not found"):
        load_squad_json(tmp_path / "absent.json")
