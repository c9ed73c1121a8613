import pytest
import torch

from srcframework.modules.span_heads.span_head import SpanHead


class MeanQuestionHead(SpanHead):
    """A head that scores each context vector against the mean of the question's vectors."""

    def __init__(self, input_dim: int, max_span_length: int = 30) -> None:
        super().__init__(max_span_length)
        self.input_dim = input_dim
        self.end = torch.nn.Linear(input_dim, input_dim)

    def get_input_dim(self) -> int:
        return self.input_dim

    def span_logits(self, context, context_mask, question, question_mask):
        mean = (question * question_mask.unsqueeze(-1)).sum(1) / question_mask.sum(1, keepdim=True)
        return (context * mean.unsqueeze(1)).sum(-1), (self.end(context) * mean.unsqueeze(1)).sum(-1)


def inputs():
    torch.manual_seed(0)
    context, question = torch.randn(2, 6, 4), torch.randn(2, 3, 4)
    context_mask = torch.tensor([[True] * 6, [True] * 4 + [False] * 2])
    question_mask = torch.tensor([[True] * 3, [True, False, False]])
    return context, context_mask, question, question_mask


def test_a_head_gets_masking_decoding_and_loss_from_span_logits():
    head = MeanQuestionHead(4, max_span_length=2).eval()
    c, cm, q, qm = inputs()
    out = head(c, cm, q, qm, torch.tensor([0, 1]), torch.tensor([1, 2]))
    assert set(out) == {"span_start_logits", "span_end_logits", "best_span", "loss"}
    assert (out["span_start_logits"][1, 4:] == torch.finfo(torch.float32).min).all()
    assert (out["span_end_logits"][1, 4:] == torch.finfo(torch.float32).min).all()
    for start, end in out["best_span"].tolist():
        assert start <= end < start + 2
    assert out["best_span"][1, 1] < 4
    assert out["loss"].dim() == 0 and torch.isfinite(out["loss"])
    head.train()
    assert set(head(c, cm, q, qm)) == {"span_start_logits", "span_end_logits"}


def test_a_head_refuses_encodings_of_another_width():
    c, cm, q, qm = inputs()
    with pytest.raises(ValueError, match="MeanQuestionHead expects encodings of size 5"):
        MeanQuestionHead(5)(c, cm, q, qm)
