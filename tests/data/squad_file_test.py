"""`iter_questions`: problems a SQuAD-format file can have, each a DatasetError naming the file and
the question (or the article and paragraph)."""
import json

import pytest

from srcframework.data.errors import DatasetError
from srcframework.data.squad_file import iter_questions
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
