import pytest
import torch

from srcframework.modules.span_heads.bi_attention import BiAttentionSpanHead
from srcframework.modules.span_heads.span_ops import best_span


def inputs(batch=2, m=7, n=4, d=6):
    torch.manual_seed(0)
    context, question = torch.randn(batch, m, d), torch.randn(batch, n, d)
    context_mask = torch.ones(batch, m, dtype=torch.bool)
    question_mask = torch.ones(batch, n, dtype=torch.bool)
    context_mask[1, 5:] = False
    question_mask[1, 2:] = False
    return context, context_mask, question, question_mask


def test_shapes_loss_and_masks():
    head = BiAttentionSpanHead(input_dim=6, max_span_length=3)
    head.eval()
    c, cm, q, qm = inputs()
    out = head(c, cm, q, qm, torch.tensor([1, 2]), torch.tensor([2, 4]))
    assert out["span_start_logits"].shape == (2, 7)
    assert out["best_span"].shape == (2, 2)
    assert out["loss"].dim() == 0 and torch.isfinite(out["loss"])
    assert (out["span_start_logits"][1, 5:] == torch.finfo(torch.float32).min).all()
    start, end = out["best_span"][1].tolist()
    assert start <= end < 5 and end - start < 3


def test_masked_positions_do_not_change_outputs():
    head = BiAttentionSpanHead(input_dim=6)
    head.eval()
    c, cm, q, qm = inputs()
    first = head(c, cm, q, qm)
    c2, q2 = c.clone(), q.clone()
    c2[1, 5:] = 50.0
    q2[1, 2:] = -50.0
    second = head(c2, cm, q2, qm)
    assert torch.allclose(first["span_start_logits"][1, :5], second["span_start_logits"][1, :5], atol=1e-5)
    assert torch.equal(first["best_span"], second["best_span"])


def test_similarity_matches_explicit_concatenation():
    head = BiAttentionSpanHead(input_dim=6)
    c, _, q, _ = inputs()
    m, n = c.size(1), q.size(1)
    explicit = torch.cat(
        [c.unsqueeze(2).expand(-1, -1, n, -1), q.unsqueeze(1).expand(-1, m, -1, -1), c.unsqueeze(2) * q.unsqueeze(1)], -1
    )
    expected = head.similarity(explicit).squeeze(-1)
    assert torch.allclose(head.similarity_matrix(c, q), expected, atol=1e-5)


def test_gradients_reach_both_encodings():
    head = BiAttentionSpanHead(input_dim=6)
    c, cm, q, qm = inputs()
    c.requires_grad_(True)
    q.requires_grad_(True)
    head(c, cm, q, qm, torch.tensor([0, 1]), torch.tensor([1, 3]))["loss"].backward()
    assert c.grad.abs().sum() > 0 and q.grad.abs().sum() > 0
    assert "best_span" not in head(c, cm, q, qm)  # training mode: no decoding


def test_rejects_wrong_width():
    head = BiAttentionSpanHead(input_dim=8)
    c, cm, q, qm = inputs()
    with pytest.raises(ValueError, match="expects encodings of size 8"):
        head(c, cm, q, qm)


def test_best_span_respects_order_and_length():
    start = torch.tensor([[-9.0, 0.0, 5.0, 0.0]])  # (1, 0) would score 9 if order were ignored
    end = torch.tensor([[9.0, 0.0, 0.0, 1.0]])
    assert best_span(start, end, 0).tolist() == [[2, 3]]
    assert best_span(start, end, 1).tolist() == [[2, 2]]
