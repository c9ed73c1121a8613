"""Held-out articles: whole articles, deterministic, about the asked share, and the training and
held-out readers of one source never share a question."""
import json

import pytest
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.data import DatasetReader

import srcframework  # noqa: F401
from srcframework.data.article_split import held_out_titles


def dataset(counts):
    data = []
    for a, n in enumerate(counts):
        qas = [{"id": f"a{a}q{i}", "question": "where does ada live", "answers": [{"text": "Paris", "answer_start": 13}]} for i in range(n)]
        data.append({"title": f"article{a}", "paragraphs": [{"context": "Ada lives in Paris and works in Lyon .", "qas": qas}]})
    return {"version": "1.1", "data": data}


def test_whole_articles_reach_the_share_and_depend_only_on_the_seed():
    data = dataset([5] * 40)
    held = held_out_titles(data, share=0.1, seed=0)
    assert len(held) == 4  # 20 of 200 questions
    assert held == held_out_titles(json.loads(json.dumps(data)), share=0.1, seed=0)
    assert held != held_out_titles(data, share=0.1, seed=1)


def test_excluded_questions_do_not_count_and_one_article_always_trains():
    data = dataset([10, 10, 10])
    excluded = {f"a0q{i}" for i in range(10)}
    held = held_out_titles(data, share=0.9, seed=0, excluded_ids=excluded)
    assert "article0" not in held and len(held) == 1


@pytest.mark.parametrize("share", [0, 1, 1.5, -0.1])
def test_a_share_outside_0_1_is_one_clear_error(share):
    with pytest.raises(ConfigurationError, match="held_out_share must be between 0 and 1"):
        held_out_titles(dataset([5, 5]), share=share)


def test_train_and_held_out_readers_split_one_file(tmp_path):
    path = tmp_path / "source.json"
    path.write_text(json.dumps(dataset([3] * 20)))
    ids = {}
    for part in ("train", "held_out", "all"):
        reader = DatasetReader.from_params(Params({"type": "squad_v1", "articles": part, "held_out_share": 0.2}))
        ids[part] = {i["metadata"]["id"] for i in reader.read(str(path))}
    assert not ids["train"] & ids["held_out"]
    assert ids["train"] | ids["held_out"] == ids["all"]
    assert len(ids["held_out"]) == 12  # 4 whole articles of 3: at least 20% of 60


def test_an_unknown_articles_value_is_one_clear_error():
    with pytest.raises(ConfigurationError, match="articles must be one of all, train, held_out"):
        DatasetReader.from_params(Params({"type": "squad_v1", "articles": "dev"}))


def test_another_file_than_the_source_is_read_whole(tmp_path):
    """The archive's validation reader reads a test set whole: the split and the exclusion apply
    to its training source only."""
    source, test, excluded = tmp_path / "source.json", tmp_path / "test.json", tmp_path / "excluded.json"
    source.write_text(json.dumps(dataset([3] * 20)))
    test.write_text(json.dumps(dataset([3] * 20)))
    excluded.write_text(json.dumps(dataset([3])))  # the three questions of article0
    params = {"type": "squad_v1", "articles": "held_out", "held_out_share": 0.2,
              "exclude_question_ids_from": str(excluded), "source_file": str(source)}
    reader = DatasetReader.from_params(Params(dict(params)))
    assert len(list(reader.read(str(test)))) == 60
    ids = {i["metadata"]["id"] for i in reader.read(str(source))}
    assert ids and len(ids) % 3 == 0 and not {"a0q0", "a0q1", "a0q2"} & ids
    assert len(ids) < 60
