import json
import logging

import pytest

from srcframework.data.dataset_readers.squad import SquadReader, char_span_to_token_span
from srcframework.data.errors import DatasetError
from tests.conftest import FIXTURES, shared_file


def write(tmp_path, payload, name="data.json"):
    path = tmp_path / name
    if isinstance(payload, bytes):
        path.write_bytes(payload)
    else:
        path.write_text(payload if isinstance(payload, str) else json.dumps(payload), encoding="utf-8")
    return str(path)


def squad(context="Ada lives in Paris.", question="Where does Ada live?", answers=None, qid="x1", **extra):
    answers = [{"text": "Paris", "answer_start": 13}] if answers is None else answers
    qa = {"id": qid, "question": question, "answers": answers, **extra}
    return {"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": context, "qas": [qa]}]}]}


def test_reads_fixture_spans_and_metadata():
    instances = list(SquadReader().read(FIXTURES / "squad_tiny.json"))
    assert len(instances) == 9
    first = instances[0]
    tokens = [t.text for t in first["context"].tokens]
    start, end = first["span_start"].sequence_index, first["span_end"].sequence_index
    assert tokens[start : end + 1] == ["1882"]
    meta = first["metadata"].metadata
    assert meta["id"] == "q1" and meta["answers"] == ["1882"] and meta["question"].startswith("When")
    s, e = meta["context_offsets"][start][0], meta["context_offsets"][end][1]
    assert meta["context"][s:e] == "1882"
    multi = instances[2]
    tokens = [t.text for t in multi["context"].tokens]
    assert tokens[multi["span_start"].sequence_index : multi["span_end"].sequence_index + 1] == ["the", "island", "of", "Quell"]


def test_keeps_original_question_and_extra_fields(tmp_path):
    path = write(tmp_path, squad(original_question="Where does Ada live ?", context_text="x"))
    meta = list(SquadReader().read(path))[0]["metadata"].metadata
    assert meta["original_question"] == "Where does Ada live ?"
    assert meta["extra"]["context_text"] == "x"


def test_length_limits_and_counted_skip(tmp_path, caplog):
    path = write(tmp_path, squad())
    reader = SquadReader(passage_length_limit=2, question_length_limit=2)
    with caplog.at_level(logging.WARNING):
        assert list(reader.read(path)) == []
    assert reader.last_skipped == {"answer lies beyond passage_length_limit": 1}
    assert "skipped 1" in caplog.text
    instance = list(SquadReader(question_length_limit=2).read(path))[0]
    assert len(instance["question"].tokens) == 2


@pytest.mark.parametrize(
    "payload, message",
    [
        ('{"data": [', "malformed JSON: expecting value at line 1"),
        (b'{"data": "caf\xe9"}', "not valid UTF-8"),
        ({"version": "1.1"}, '"data" list'),
        (squad(question="  "), "empty question"),
        (squad(context="", answers=[]), "empty context"),
        (squad(answers=[{"text": "Paris", "answer_start": 3}]), "answer_start 3 points at"),
        (squad(answers=[{"text": "Paris"}]), 'needs "text" and "answer_start"'),
        (squad(answers=[]), "no answers"),
    ],
)
def test_bad_input_names_file_and_question(tmp_path, payload, message):
    path = write(tmp_path, payload)
    with pytest.raises(DatasetError) as err:
        list(SquadReader().read(path))
    assert message in str(err.value)
    assert path in str(err.value)
    if isinstance(payload, dict) and payload.get("data"):
        assert "'x1'" in str(err.value)


def test_missing_keys_named(tmp_path):
    data = squad()
    del data["data"][0]["paragraphs"][0]["qas"][0]["question"]
    with pytest.raises(DatasetError, match=r"question id 'x1'.*missing key\(s\) \['question'\]"):
        list(SquadReader().read(write(tmp_path, data)))


def test_skip_invalid_counts_reasons(tmp_path, caplog):
    data = squad()
    good = data["data"][0]["paragraphs"][0]["qas"][0]
    bad = dict(good, id="x2", answers=[{"text": "Paris", "answer_start": 0}])
    empty = dict(good, id="x3", question="")
    data["data"][0]["paragraphs"][0]["qas"] += [bad, empty]
    reader = SquadReader(skip_invalid=True)
    with caplog.at_level(logging.WARNING):
        instances = list(reader.read(write(tmp_path, data)))
    assert [i["metadata"]["id"] for i in instances] == ["x1"]
    assert reader.last_skipped == {"answer_start does not match the answer text": 1, "empty question": 1}
    assert "skipped 2" in caplog.text


def test_missing_file():
    with pytest.raises(DatasetError, match="file not found"):
        list(SquadReader().read("no/such/file.json"))


def test_exclude_question_ids(tmp_path):
    path = write(tmp_path, squad())
    reader = SquadReader(exclude_question_ids_from=path)
    assert list(reader.read(str(FIXTURES / "squad_tiny.json")))  # no shared ids
    assert list(reader.read(path)) == []
    assert reader.last_skipped == {"id listed in exclude_question_ids_from": 1}


def test_char_span_to_token_span():
    offsets = [(0, 3), (4, 9), (10, 12), (13, 18)]
    assert char_span_to_token_span(offsets, 4, 9) == (1, 1)
    assert char_span_to_token_span(offsets, 5, 14) == (1, 3)
    assert char_span_to_token_span(offsets, 30, 35) == (-1, -1)


def test_real_cpu_scale_split():
    dev = shared_file("squad/dev-v1.1.json")
    xquad = shared_file("xquad/xquad.en.json")
    reader = SquadReader(exclude_question_ids_from=str(xquad))
    count = sum(1 for _ in reader.read(str(dev)))
    assert count == 9380
    assert reader.last_skipped == {"id listed in exclude_question_ids_from": 1190}


def test_real_noiseqa_files_keep_extra_fields():
    path = shared_file("noiseqa/synthetic/xquad-keyboard-synthetic.json")
    instances = list(SquadReader().read(str(path)))
    assert len(instances) == 1190
    assert "context_text" in instances[0]["metadata"]["extra"]


def test_question_noise_augments_training_reads_only_with_fresh_seed_each_read():
    import srcframework.noise.keyboard  # noqa: F401
    from allennlp.common import Params

    from srcframework.noise.noise_source import NoiseSource

    noise = NoiseSource.from_params(Params({"type": "keyboard", "word_probability": 1.0}))
    reader = SquadReader(question_noise=noise, noise_seed=7, noise_batch_size=4)
    first = list(reader.read(FIXTURES / "squad_tiny.json"))
    second = list(reader.read(FIXTURES / "squad_tiny.json"))
    clean = list(SquadReader().read(FIXTURES / "squad_tiny.json"))
    texts = lambda instances: [i["metadata"]["question"] for i in instances]  # noqa: E731
    assert texts(first) != texts(clean) and texts(second) != texts(first)
    assert [i["metadata"]["original_question"] for i in first] == texts(clean)
    assert [i["metadata"]["id"] for i in first] == [i["metadata"]["id"] for i in clean]
    again = SquadReader(question_noise=noise, noise_seed=7, noise_batch_size=3)
    assert texts(list(again.read(FIXTURES / "squad_tiny.json"))) == texts(first)  # seeded, batch-independent
    assert [t.text for t in first[0]["question"].tokens] != [t.text for t in clean[0]["question"].tokens]


def test_duplicate_question_ids_name_the_id_and_file(tmp_path):
    data = squad()
    first = data["data"][0]["paragraphs"][0]["qas"][0]
    data["data"].append({"title": "u", "paragraphs": [{"context": "Bo lives in Rome.", "qas": [
        dict(first, answers=[{"text": "Rome", "answer_start": 12}])
    ]}]})
    path = write(tmp_path, data)
    for reader in (SquadReader(), SquadReader(skip_invalid=True)):
        with pytest.raises(DatasetError) as err:
            list(reader.read(path))
        assert str(err.value).startswith(f"{path} (question id 'x1'): duplicate question id")
