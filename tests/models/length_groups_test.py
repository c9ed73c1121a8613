"""A batch with one long context runs in groups of similar length and gives what the padded batch
gives; no group holds more than `max_group_positions` context positions, on the model and through
`allennlp evaluate` and `predict`; a context over `max_context_tokens` is a clear error naming its
question."""
import json

import pytest
import torch
from allennlp.common import Params
from allennlp.common.testing import ModelTestCase
from allennlp.data import Batch, DatasetReader
from allennlp.nn.util import get_text_field_mask

from srcframework.common.errors import InputError
from srcframework.models import length_groups
from srcframework.models.span_qa import SpanQA
from tests.conftest import FIXTURES, run_allennlp

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


def test_groups_hold_at_most_the_position_cap():
    lengths = [1400, 150, 1400, 1400, 160, 1400, 1400]
    groups = length_groups.length_groups(lengths, max_positions=3000)
    assert sorted(row for group in groups for row in group) == list(range(7))
    for group in groups:
        assert len(group) * max(lengths[k] for k in group) <= 3000
    assert sorted(map(len, groups)) == [1, 2, 2, 2]
    assert length_groups.length_groups([40000, 40000], max_positions=3000) == [[0], [1]]  # a row alone
    # rows of one long context need no padding, only the cap splits them
    assert not length_groups.needs_groups([40000] * 8)
    assert length_groups.needs_groups([40000] * 8, max_positions=50000)
    assert not length_groups.needs_groups([1500] * 3, max_positions=50000)
    assert not length_groups.needs_groups([40000], max_positions=1000)


def test_same_rows_names_the_first_row_of_each_context():
    tokens = torch.tensor([[5, 6, 7, 0], [5, 6, 0, 0], [5, 6, 7, 0], [5, 6, 7, 8], [5, 6, 0, 0]])
    chars = torch.zeros(5, 4, 3, dtype=torch.long)
    chars[3, 0, 0] = 1
    field = {"tokens": {"tokens": tokens}, "token_characters": {"token_characters": chars}}
    lengths = (tokens > 0).sum(-1).tolist()
    assert length_groups.same_rows(field, lengths) == [0, 1, 0, 3, 1]
    chars[2, 1, 2] = 4  # the same tokens, a different character: another context
    assert length_groups.same_rows(field, lengths) == [0, 1, 2, 3, 1]


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
        monkeypatch.setattr(SpanQA, "_spans", lambda model, *args, **kwargs: calls.append(1) or spans(model, *args, **kwargs))
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

    def test_the_model_caps_a_group_at_50000_positions_by_default(self):
        assert self.model.max_group_positions == length_groups.MAX_POSITIONS == 50000
        assert self.model.context_encoder.max_embedding_positions == 4096

    def test_questions_on_one_long_context_run_under_the_cap_with_the_same_outputs(self, monkeypatch):
        self.model.eval()
        reader = DatasetReader.from_params(Params.from_file(self.param_file)["dataset_reader"])
        tensors = self.tensors([
            reader.text_to_instance(question, LONG, question_id=f"q{k}")
            for k, question in enumerate(["Who dredged the harbour ?", "When was it dredged ?",
                                          "Which harbour ?", "Who was Ossia Brandt ?"])
        ])
        positions = []
        spans = SpanQA._spans
        monkeypatch.setattr(SpanQA, "_spans", lambda model, context, *args, **kwargs: positions.append(
            tuple(get_text_field_mask(context).shape)) or spans(model, context, *args, **kwargs))
        self.model.max_group_positions = 3000
        capped = self.model(**tensors)
        assert positions == [(2, 1400), (2, 1400)]  # 4 x 1,400 positions in two groups under 3,000
        self.model.max_group_positions = None
        whole = self.model(**tensors)
        assert positions[2:] == [(4, 1400)]
        assert capped["best_span"].tolist() == whole["best_span"].tolist()
        assert capped["best_span_str"] == whole["best_span_str"]
        for key in ("span_start_logits", "span_end_logits"):
            assert torch.allclose(capped[key], whole[key], atol=1e-5)

    def test_questions_on_one_context_share_its_encoding_with_the_same_outputs(self):
        self.model.eval()
        reader = DatasetReader.from_params(Params.from_file(self.param_file)["dataset_reader"])
        questions = ["Who dredged the harbour ?", "When was it dredged ?", "Which harbour ?", "Who was Ossia Brandt ?"]
        contexts = [LONG, SHORT, LONG, LONG, SHORT, LONG]
        tensors = self.tensors([
            reader.text_to_instance(questions[k % 4], context, answers=["Ossia Brandt"],
                                    answer_starts=[context.index("Ossia")], question_id=f"q{k}")
            for k, context in enumerate(contexts)
        ])
        widths = []
        hook = self.model.context_encoder.register_forward_hook(
            lambda module, inputs, output: widths.append(tuple(output[1].shape)))
        self.model.max_group_positions = 3000
        shared = self.model(**tensors)
        contexts_encoded = [shape for shape in widths if shape[1] >= 14]  # the questions are shorter
        assert sorted(contexts_encoded) == [(1, 14), (1, 1400)]  # each distinct context once
        del widths[:]
        self.model.share_context_encodings = False
        alone = self.model(**tensors)
        hook.remove()
        assert sorted(shape for shape in widths if shape[1] >= 14) == [(2, 14), (2, 1400), (2, 1400)]
        for key in ("span_start_logits", "span_end_logits"):
            assert shared[key].shape == alone[key].shape
            assert torch.allclose(shared[key], alone[key], atol=1e-5)
        assert torch.allclose(shared["loss"], alone["loss"], atol=1e-5)
        # LONG repeats one sentence, so an untrained model's best spans in it can tie to the last
        # digits: each shared span scores what the best span scores with one encoding a row
        for row, (one, other) in enumerate(zip(shared["best_span"].tolist(), alone["best_span"].tolist())):
            def score(span):
                return float(alone["span_start_logits"][row, span[0]] + alone["span_end_logits"][row, span[1]])

            assert score(one) == pytest.approx(score(other), abs=1e-4)
        # training encodes every row (each row its own dropout draws)
        self.model.share_context_encodings = True
        self.model.train()
        del widths[:]
        hook = self.model.context_encoder.register_forward_hook(
            lambda module, inputs, output: widths.append(tuple(output[1].shape)))
        self.model(**tensors)
        hook.remove()
        assert sum(rows for rows, width in widths if width >= 14) == 6

    @pytest.mark.parametrize("group_by_length", [True, False])
    def test_short_contexts_asked_twice_share_one_padded_encoding(self, group_by_length):
        self.model.eval()
        self.model.group_by_length = group_by_length
        reader = DatasetReader.from_params(Params.from_file(self.param_file)["dataset_reader"])
        first, second = SHORT, SHORT + " It reopened in 1890 ."
        contexts = [first, second, first, second]
        tensors = self.tensors([reader.text_to_instance(question, context, question_id=f"q{k}")
                                for k, (question, context) in enumerate(zip(
                                    ["Who dredged the harbour ?", "When did it reopen ?", "Which harbour ?",
                                     "Who was Ossia Brandt ?"], contexts))])
        shapes = []
        hook = self.model.context_encoder.register_forward_hook(
            lambda module, inputs, output: shapes.append(tuple(output[1].shape)))
        shared = self.model(**tensors)
        self.model.share_context_encodings = False
        alone = self.model(**tensors)
        hook.remove()
        width = get_text_field_mask(tensors["context"]).size(1)
        # the two contexts encoded once, together; then all four rows at once
        assert [shape for shape in shapes if shape[1] == width] == [(2, width), (4, width)]
        for key in ("span_start_logits", "span_end_logits"):
            assert torch.allclose(shared[key], alone[key], atol=1e-5)
        assert shared["best_span"].tolist() == alone["best_span"].tolist()

    def test_a_long_context_is_embedded_in_pieces_with_the_same_outputs(self, monkeypatch):
        self.model.eval()
        tensors = self.tensors(self.batch)
        encoder = self.model.context_encoder
        calls = []
        embed = encoder.text_field_embedder.forward
        monkeypatch.setattr(encoder.text_field_embedder, "forward", lambda field, **kwargs: calls.append(
            tuple(get_text_field_mask(field).shape)) or embed(field, **kwargs))
        mask = get_text_field_mask(tensors["context"])
        encoder.max_embedding_positions = 500
        pieces, _ = encoder(tensors["context"])
        assert len(calls) > 1 and all(rows * tokens <= 500 for rows, tokens in calls)
        assert sum(tokens for _, tokens in calls) == mask.size(1)
        encoder.max_embedding_positions = None
        whole, _ = encoder(tensors["context"])
        assert calls[-1] == tuple(mask.shape)
        assert torch.allclose(pieces, whole, atol=1e-6)
        encoder.train()  # training embeds the batch at once (its dropout draws stay as they were)
        encoder.max_embedding_positions = 500
        encoder(tensors["context"])
        assert calls[-1] == tuple(mask.shape)

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


def long_context_file(path, questions: int, repeats: int) -> str:
    """A SQuAD file of `questions` questions on one context of `repeats` x 14 tokens."""
    context = " ".join([SHORT] * repeats)
    qas = [{"id": f"long{k}", "question": "Who dredged the harbour ?",
            "answers": [{"text": "Ossia Brandt", "answer_start": context.index("Ossia")}]} for k in range(questions)]
    path.write_text(json.dumps({"version": "1.1", "data": [
        {"title": "long", "paragraphs": [{"context": context, "qas": qas}]}]}))
    return str(path)


@pytest.mark.slow
def test_evaluate_and_predict_keep_every_pass_under_the_cap(tiny_archive, tmp_path, monkeypatch):
    """Four questions on one 16,800-token context: `allennlp evaluate` (batches of 3 in the tiny
    config) and `predict --batch-size 4` batch them together, 50,400 and 67,200 positions; no pass
    of the model takes more than the default 50,000, and the answers are those of the whole batch."""
    data = long_context_file(tmp_path / "long.json", questions=4, repeats=1200)
    positions = []
    spans = SpanQA._spans
    monkeypatch.setattr(SpanQA, "_spans", lambda model, context, *args, **kwargs: positions.append(
        tuple(get_text_field_mask(context).shape)) or spans(model, context, *args, **kwargs))

    def allennlp(*arguments):
        done = run_allennlp(*arguments, "--include-package", "srcframework.allennlp_plugin", cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-3000:]

    allennlp("evaluate", tiny_archive, data, "--output-file", tmp_path / "metrics.json")
    assert positions and all(rows * tokens <= 50000 for rows, tokens in positions)
    assert sum(rows for rows, _ in positions) == 4 and max(tokens for _, tokens in positions) == 16800
    del positions[:]
    answers = {}
    for name, overrides in (("capped", "{}"), ("whole", '{"model.max_group_positions": null}')):
        output = tmp_path / f"{name}.jsonl"
        allennlp("predict", tiny_archive, data, "--use-dataset-reader", "--dataset-reader-choice", "validation",
                 "--batch-size", "4", "--silent", "--output-file", output, "-o", overrides)
        answers[name] = [(line["id"], line["best_span"], line["best_span_str"])
                         for line in map(json.loads, output.read_text().splitlines())]
    assert positions == [(2, 16800), (2, 16800), (4, 16800)]
    assert len(answers["capped"]) == 4 and answers["capped"] == answers["whole"]
