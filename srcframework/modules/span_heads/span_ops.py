"""Span helpers shared by span heads and span models."""
import torch


def mask_logits(logits: torch.Tensor, mask: torch.BoolTensor) -> torch.Tensor:
    return logits.masked_fill(~mask, torch.finfo(logits.dtype).min)


def best_span(start_logits: torch.Tensor, end_logits: torch.Tensor, max_span_length: int) -> torch.LongTensor:
    """Inclusive (start, end) maximising start + end logit with start <= end < start + max length."""
    length = start_logits.size(1)
    scores = start_logits.unsqueeze(2) + end_logits.unsqueeze(1)
    allowed = torch.ones(length, length, dtype=torch.bool, device=scores.device).triu()
    if max_span_length > 0:
        allowed = allowed & ~torch.ones_like(allowed).triu(max_span_length)
    scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
    flat = scores.view(scores.size(0), -1).argmax(-1)
    return torch.stack([flat // length, flat % length], dim=-1)


def span_loss(start_logits, end_logits, span_start, span_end) -> torch.Tensor:
    """Mean over the batch of the cross-entropy of the gold start plus that of the gold end."""
    start_log_probs = torch.log_softmax(start_logits, dim=-1)
    end_log_probs = torch.log_softmax(end_logits, dim=-1)
    loss = torch.nn.functional.nll_loss(start_log_probs, span_start.view(-1))
    return loss + torch.nn.functional.nll_loss(end_log_probs, span_end.view(-1))
