import json

from srcframework.jobs.challenge_set import make_challenge_set
from srcframework.studies.contexts import context_id, question_contexts, squad_contexts
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "squad_tiny.json")


def test_each_question_gets_its_paragraphs_id_and_a_noisy_copy_the_same(tmp_path):
    dataset = json.loads(open(TINY, encoding="utf-8").read())
    expected = {qa["id"]: context_id(paragraph["context"])
                for article in dataset["data"] for paragraph in article["paragraphs"] for qa in paragraph["qas"]}
    found = squad_contexts(TINY)
    assert found == expected and len(found) == 9 and len(set(found.values())) == 3
    noisy = tmp_path / "noisy.json"
    make_challenge_set(TINY, str(noisy), {"type": "keyboard", "word_probability": 0.5}, seed=1, progress=False)
    assert squad_contexts(str(noisy)) == found


def test_files_that_are_not_squad_json_give_no_contexts_and_the_first_file_wins(tmp_path):
    (tmp_path / "fid2qid_dev.csv").write_text("DEV000001\tq1\n")
    other = tmp_path / "other.json"
    dataset = json.loads(open(TINY, encoding="utf-8").read())
    dataset["data"][0]["paragraphs"][0]["context"] += " More text."
    other.write_text(json.dumps(dataset))
    paths = [str(tmp_path / "fid2qid_dev.csv"), str(tmp_path), TINY, str(other)]
    assert question_contexts(paths) == squad_contexts(TINY)
    assert question_contexts([str(other), TINY]) == squad_contexts(str(other)) != squad_contexts(TINY)
