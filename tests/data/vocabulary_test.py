"""The `from_reader` vocabulary: a noise-trained model and its clean twin share one vocabulary,
built from the clean training data only."""
import copy
import json

from allennlp.common import Params
from allennlp.data import Vocabulary

import srcframework  # noqa: F401

CONTEXT = "Ada lives in Paris and works in Lyon ."


def test_twins_get_the_same_clean_vocabulary(tmp_path):
    qas = [{"id": f"q{i}", "question": "where does ada live", "answers": [{"text": "Paris", "answer_start": 13}]} for i in range(5)]
    data = {"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": CONTEXT, "qas": qas}]}]}
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps(data))
    noisy = tmp_path / "noisy.json"
    noisy.write_text(json.dumps(data).replace("where does ada live", "zzqx does ada live"))
    spec = {"type": "from_reader", "reader": {"type": "squad_v1"}, "data_path": str(clean)}
    vocab = Vocabulary.from_params(Params(copy.deepcopy(spec)))
    twin = Vocabulary.from_params(Params(copy.deepcopy(spec)))
    assert vocab.get_index_to_token_vocabulary("tokens") == twin.get_index_to_token_vocabulary("tokens")
    tokens = set(vocab.get_index_to_token_vocabulary("tokens").values())
    assert {"where", "Paris"} <= tokens and "zzqx" not in tokens
