"""Span helpers shared by span heads and span models."""
import torch


def mask_logits(logits: torch.Tensor, mask: torch.BoolTensor) -> torch.Tensor:
    return logits.masked_fill(~mask, torch.finfo(logits.dtype).min)


def best_span(start_logits: torch.Tensor, end_logits: torch.Tensor, max_span_length: int) -> torch.LongTensor:
    """
    Inclusive (start, end) maximising start + end logit with start <= end < start + max length.

    Memory is B x n x `max_span_length` (B x n when `max_span_length` <= 0, no limit), never
    B x n x n, so a very long context decodes. Ties go to the smallest start, then the smallest
    end, as an argmax over the full n x n score matrix would give.

    # Parameters

    start_logits : `torch.Tensor`
        B x n.
    end_logits : `torch.Tensor`
        B x n.
    max_span_length : `int`
        Longest span in positions; 0 (or less) means no limit.

    # Returns

    `torch.LongTensor`, B x 2.
    """
    length = start_logits.size(1)
    if max_span_length <= 0 or max_span_length >= length:
        return _best_span_unbounded(start_logits, end_logits)
    # scores[b, s, k] = start[b, s] + end[b, s + k]: a sliding window of the end logits, padded at
    # the right end with the dtype's minimum (as the full matrix fills the spans it forbids)
    fill = torch.finfo(end_logits.dtype).min
    padded = torch.nn.functional.pad(end_logits, (0, max_span_length - 1), value=fill)
    windows = padded.unfold(1, max_span_length, 1)  # B x n x K, a view
    scores = start_logits.unsqueeze(2) + windows
    past_end = torch.arange(length, device=scores.device).unsqueeze(1) + torch.arange(
        max_span_length, device=scores.device
    ) >= length
    # -inf, not the dtype minimum: two masked logits add up to -inf, and a span past the end must
    # never beat a real (if masked) one
    scores = scores.masked_fill(past_end, float("-inf"))
    # row-major (start, offset) order is (start, end) order, so the first maximum is the same one
    flat = scores.view(scores.size(0), -1).argmax(-1)
    starts = flat // max_span_length
    return torch.stack([starts, starts + flat % max_span_length], dim=-1)


def _best_span_unbounded(start_logits: torch.Tensor, end_logits: torch.Tensor) -> torch.LongTensor:
    """`best_span` without a length limit in O(n): the best start is the one whose own logit plus
    the largest end logit at or after it is highest; its end is the first one reaching that."""
    # largest end logit at or after each position
    end_after = end_logits.flip(1).cummax(1).values.flip(1)
    by_start = start_logits + end_after
    best = by_start.max(1, keepdim=True).values
    starts = by_start.argmax(1)  # first maximum: the smallest start
    scores = start_logits.gather(1, starts.unsqueeze(1)) + end_logits
    positions = torch.arange(end_logits.size(1), device=end_logits.device)
    reaching = (scores == best) & (positions >= starts.unsqueeze(1))
    ends = reaching.int().argmax(1)  # first True
    return torch.stack([starts, ends], dim=-1)


def span_loss(start_logits, end_logits, span_start, span_end) -> torch.Tensor:
    """Mean over the batch of the cross-entropy of the gold start plus that of the gold end, in
    float32 whatever the logits' dtype (bfloat16 under `span_qa`'s `training_autocast`)."""
    start_log_probs = torch.log_softmax(start_logits.float(), dim=-1)
    end_log_probs = torch.log_softmax(end_logits.float(), dim=-1)
    loss = torch.nn.functional.nll_loss(start_log_probs, span_start.view(-1))
    return loss + torch.nn.functional.nll_loss(end_log_probs, span_end.view(-1))
