import json
import string
from pathlib import Path

import pytest

from srcframework.data.dataset_readers.transformer_squad import TransformerSquadReader, window_starts
from srcframework.data.errors import DatasetError
from tests.conftest import FIXTURES


def build_tiny_bert(directory: Path) -> str:
    """A randomly initialised 2-layer BERT (hidden size 16) with an uncased WordPiece vocabulary of
    the words of tests/fixtures/squad_tiny.json plus every ASCII letter and digit (also as `##`
    pieces, so that any other word splits into several wordpieces), saved with `save_pretrained`."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast
    from transformers.models.bert.tokenization_bert import BasicTokenizer

    dataset = json.loads((FIXTURES / "squad_tiny.json").read_text(encoding="utf-8"))
    basic = BasicTokenizer(do_lower_case=True)
    words = set()
    for article in dataset["data"]:
        for paragraph in article["paragraphs"]:
            words.update(basic.tokenize(paragraph["context"]))
            for qa in paragraph["qas"]:
                words.update(basic.tokenize(qa["question"]))
    characters = string.ascii_lowercase + string.digits + string.punctuation
    pieces = sorted(words | set(characters)) + ["##" + c for c in string.ascii_lowercase + string.digits]
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [p for p in dict.fromkeys(pieces)]
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    BertTokenizerFast(vocab_file=str(directory / "vocab.txt"), do_lower_case=True).save_pretrained(str(directory))
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(vocab), hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=128,
    )
    BertModel(config).save_pretrained(str(directory))
    return str(directory)


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tiny_bert"))


def write(tmp_path, context, qas, name="data.json"):
    payload = {"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": context, "qas": qas}]}]}
    path = tmp_path / name
    path.write_text(json.dumps(payload), encoding="utf-8")
    return str(path)


# 40 words, each one wordpiece of the tiny vocabulary
LONG = " ".join(["harbour", "ferry", "island", "lighthouse", "boats"] * 8)
ANSWER = "Zorbu Brandt"


def long_context(words_before: int) -> tuple:
    before = " ".join(LONG.split()[:words_before])
    context = f"{before} {ANSWER} {LONG}"
    return context, len(before) + 1


def test_window_starts_overlap_by_stride_and_respect_the_cap():
    assert window_starts(10, 10, 3, 8) == [0]
    assert window_starts(11, 10, 3, 8) == [0, 7]
    assert window_starts(100, 10, 3, 8) == [0, 7, 14, 21, 28, 35, 42, 49]
    assert window_starts(100, 10, 0, 3) == [0, 10, 20]


def test_long_context_splits_into_windows_with_the_stride(tiny_bert):
    reader = TransformerSquadReader(tiny_bert, length_limit=32, stride=8, max_query_length=6, max_windows=20)
    context, start = long_context(10)
    instance = reader.text_to_instance("Who dredged the harbour?", context, [ANSWER], [start], question_id="x")
    meta = instance["metadata"].metadata
    windows = instance["windows"].field_list
    context_pieces = [t.text for t in reader.tokenize_context(context)]
    question = ["who", "dredged", "the", "harbour", "?"]
    room = 32 - len(question) - 3
    assert len(context_pieces) > 2 * room and len(windows) == len(meta["windows"]) == 3
    covered = []
    for w, (field, (first, position, count)) in enumerate(zip(windows, meta["windows"])):
        texts = [t.text for t in field.tokens]
        assert texts[: position] == ["[CLS]"] + question + ["[SEP]"] and texts[-1] == "[SEP]"
        assert len(texts) <= 32 and first == w * (room - 8)
        assert texts[position : position + count] == context_pieces[first : first + count]
        assert [t.type_id for t in field.tokens] == [0] * position + [1] * (count + 1)
        covered.extend(range(first, first + count))
        if w:
            previous = [t.text for t in windows[w - 1].tokens]
            assert previous[-1 - 8 : -1] == texts[position : position + 8]
    assert sorted(set(covered)) == list(range(len(context_pieces)))


def test_answer_span_maps_to_its_wordpieces_and_back_to_the_text(tiny_bert):
    reader = TransformerSquadReader(tiny_bert, length_limit=32, stride=8, max_query_length=6, max_windows=20)
    # the answer (6 wordpieces: zorbu is not in the vocabulary) sits in the overlap of windows 0 and 1
    context, start = long_context(18)
    instance = reader.text_to_instance("Who dredged the harbour?", context, [ANSWER], [start], question_id="x")
    meta = instance["metadata"].metadata
    starts = [f.sequence_index for f in instance["span_start"].field_list]
    ends = [f.sequence_index for f in instance["span_end"].field_list]
    assert [s >= 0 for s in starts] == [True, True] + [False] * (len(starts) - 2)
    assert all(e == -1 for s, e in zip(starts, ends) if s == -1)
    for w in (0, 1):
        pieces = [t.text for t in instance["windows"].field_list[w].tokens][starts[w] : ends[w] + 1]
        assert pieces == ["z", "##o", "##r", "##b", "##u", "brandt"]
        first, position, _ = meta["windows"][w]
        offsets = meta["context_offsets"]
        s, e = offsets[first + starts[w] - position][0], offsets[first + ends[w] - position][1]
        assert context[s:e] == ANSWER


def test_window_cap_and_require_answer_in_windows(tiny_bert, tmp_path):
    context, start = long_context(38)
    qas = [
        {"id": "late", "question": "Who?", "answers": [{"text": ANSWER, "answer_start": start}]},
        {"id": "early", "question": "What?", "answers": [{"text": "harbour", "answer_start": 0}]},
    ]
    path = write(tmp_path, context, qas)
    uncapped = TransformerSquadReader(tiny_bert, length_limit=32, stride=8, max_query_length=6)
    assert [len(i["windows"].field_list) for i in uncapped.read(path)] == [4, 4]
    capped = TransformerSquadReader(tiny_bert, length_limit=32, stride=8, max_query_length=6, max_windows=1)
    late, early = capped.read(path)
    assert len(late["windows"].field_list) == len(late["metadata"]["windows"]) == 1
    assert [f.sequence_index for f in late["span_start"].field_list] == [-1]
    assert [f.sequence_index for f in early["span_start"].field_list] == [4]
    strict = TransformerSquadReader(
        tiny_bert, length_limit=32, stride=8, max_query_length=6, max_windows=1, require_answer_in_windows=True
    )
    kept = list(strict.read(path))
    assert [i["metadata"]["id"] for i in kept] == ["early"]
    assert strict.last_skipped == {"answer lies in none of the first 1 windows": 1}


def test_text_to_instance_without_answers_and_fixture_file(tiny_bert):
    reader = TransformerSquadReader(tiny_bert)
    instance = reader.text_to_instance("Where does the ferry go?", "A ferry goes to Quell.", question_id="p1")
    assert "span_start" not in instance.fields and len(instance["windows"].field_list) == 1
    meta = instance["metadata"].metadata
    assert {"id", "question", "original_question", "context", "answers", "extra", "context_offsets", "windows"} <= set(meta)
    assert meta["id"] == "p1" and meta["answers"] == []
    instances = list(reader.read(FIXTURES / "squad_tiny.json"))
    assert len(instances) == 9 and all(len(i["windows"].field_list) == 1 for i in instances)
    first = instances[0]
    s, e = first["span_start"].field_list[0].sequence_index, first["span_end"].field_list[0].sequence_index
    assert [t.text for t in first["windows"].field_list[0].tokens][s : e + 1] == ["1882"]


def test_bad_settings_and_bad_input_are_clear_errors(tiny_bert, tmp_path):
    with pytest.raises(ValueError, match="stride 200 must be >= 0 and smaller than the context room"):
        TransformerSquadReader(tiny_bert, stride=200)
    qas = [
        {"id": "bad", "question": "Who?", "answers": [{"text": "Quell", "answer_start": 0}]},
        {"id": "good", "question": "Who?", "answers": [{"text": "A", "answer_start": 0}]},
    ]
    path = write(tmp_path, "A ferry goes to Quell.", qas)
    with pytest.raises(DatasetError, match="bad"):
        list(TransformerSquadReader(tiny_bert).read(path))
    reader = TransformerSquadReader(tiny_bert, skip_invalid=True, exclude_question_ids_from=path)
    assert list(reader.read(path)) == []
    assert reader.last_skipped == {"answer_start does not match the answer text": 1, "id listed in exclude_question_ids_from": 1}


def test_question_noise_changes_the_question_wordpieces_and_keeps_the_original(tiny_bert):
    from allennlp.common import Params

    import srcframework.noise.keyboard  # noqa: F401
    from srcframework.noise.noise_source import NoiseSource

    noise = NoiseSource.from_params(Params({"type": "keyboard", "word_probability": 1.0}))
    noisy = list(TransformerSquadReader(tiny_bert, question_noise=noise, noise_seed=3).read(FIXTURES / "squad_tiny.json"))
    clean = list(TransformerSquadReader(tiny_bert).read(FIXTURES / "squad_tiny.json"))
    assert [i["metadata"]["original_question"] for i in noisy] == [i["metadata"]["question"] for i in clean]
    assert noisy[0]["metadata"]["question"] != clean[0]["metadata"]["question"]
    tokens = lambda instance: [t.text for t in instance["windows"].field_list[0].tokens]  # noqa: E731
    assert tokens(noisy[0]) != tokens(clean[0])
    assert noisy[0]["span_start"].field_list[0].sequence_index >= 0


def test_duplicate_question_ids_name_the_id_and_file(tiny_bert, tmp_path):
    qas = [
        {"id": "twice", "question": "Where?", "answers": [{"text": "Quell", "answer_start": 16}]},
        {"id": "twice", "question": "What?", "answers": [{"text": "ferry", "answer_start": 2}]},
    ]
    path = write(tmp_path, "A ferry goes to Quell.", qas)
    with pytest.raises(DatasetError) as error:
        list(TransformerSquadReader(tiny_bert).read(path))
    assert str(error.value).startswith(f"{path} (question id 'twice'): duplicate question id")
