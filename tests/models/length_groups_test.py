"""A batch with one long context runs in groups of similar length and gives what the padded batch
gives; a context over `max_context_tokens` is a clear error naming its question."""
import pytest
import torch
from allennlp.common import Params
from allennlp.common.testing import ModelTestCase
from allennlp.data import Batch, DatasetReader

from srcframework.common.errors import InputError
from srcframework.models import length_groups
from srcframework.models.span_qa import SpanQA
from tests.conftest import FIXTURES

SHORT = "The harbour of Velmont was dredged in 1882 by the engineer Ossia Brandt ."
LONG = " ".join([SHORT] * 100)  # 1,400 tokens


def test_groups_hold_similar_lengths_and_every_row_once():
    lengths = [150, 140, 2000, 300, 5, 160]
    groups = length_groups.length_groups(lengths)
    assert sorted(row for group in groups for row in group) == list(range(6))
    for group in groups:
        assert max(lengths[k] for k in group) <= 2 * max(1, min(lengths[k] for k in group))
    assert [2] in groups
    assert length_groups.needs_groups([150] * 31 + [40000])
    assert not length_groups.needs_groups([150] * 31 + [900])  # no long context: the batch as it is
    assert not length_groups.needs_groups([1500, 1400, 1600])  # little padding
    assert not length_groups.needs_groups([40000])


class TestLengthGroups(ModelTestCase):
    def setup_method(self):
        super().setup_method()
        self.set_up_model(FIXTURES / "bidaf_tiny.jsonnet", FIXTURES / "squad_tiny.json")
        reader = DatasetReader.from_params(Params.from_file(self.param_file)["dataset_reader"])
        contexts = [SHORT, LONG, SHORT, SHORT + " " + SHORT]
        self.batch = [reader.text_to_instance("Who dredged the harbour ?", context, answers=["Ossia Brandt"],
                                              answer_starts=[context.index("Ossia")], question_id=f"q{k}")
                      for k, context in enumerate(contexts)]

    def tensors(self, instances):
        batch = Batch(instances)
        batch.index_instances(self.vocab)
        return batch.as_tensor_dict()

    def test_grouped_and_padded_batches_give_the_same_outputs(self, monkeypatch):
        self.model.eval()
        tensors = self.tensors(self.batch)
        assert isinstance(self.model, SpanQA) and self.model.group_by_length
        calls = []
        spans = SpanQA._spans
        monkeypatch.setattr(SpanQA, "_spans", lambda model, *args: calls.append(1) or spans(model, *args))
        grouped = self.model(**tensors)
        assert len(calls) == 2  # the three short contexts, then the long one
        self.model.group_by_length = False
        padded = self.model(**tensors)
        assert len(calls) == 3
        assert grouped["best_span"].tolist() == padded["best_span"].tolist()
        assert grouped["best_span_str"] == padded["best_span_str"]
        for key in ("span_start_logits", "span_end_logits"):
            assert grouped[key].shape == padded[key].shape
            assert torch.allclose(grouped[key], padded[key], atol=1e-5)
        assert torch.allclose(grouped["loss"], padded["loss"], atol=1e-5)

    def test_training_on_groups_gives_the_same_loss_and_gradients(self):
        self.model.train()
        for module in self.model.modules():
            if isinstance(module, torch.nn.Dropout):
                module.p = 0.0
        tensors = self.tensors(self.batch)
        losses, gradients = [], []
        for group_by_length in (True, False):
            self.model.group_by_length = group_by_length
            self.model.zero_grad()
            loss = self.model(**tensors)["loss"]
            loss.backward()
            losses.append(loss.item())
            gradients.append([p.grad.clone() for p in self.model.parameters() if p.grad is not None])
        assert losses[0] == pytest.approx(losses[1], abs=1e-5)
        for grouped, padded in zip(*gradients):
            assert torch.allclose(grouped, padded, atol=1e-5)

    def test_a_context_over_the_cap_is_an_error_naming_its_question(self):
        self.model.eval()
        self.model.max_context_tokens = 1000
        with pytest.raises(InputError, match=r"question id 'q1': the context has 1,400 tokens, more than this "
                                             r"model's max_context_tokens 1,000"):
            self.model(**self.tensors(self.batch))
        self.model.max_context_tokens = None
        assert len(self.model(**self.tensors(self.batch))["best_span_str"]) == 4
