from typing import Dict, Optional, Tuple

import torch
from allennlp.common import Registrable

from srcframework.modules.span_heads.span_ops import best_span, mask_logits, span_loss


class SpanHead(torch.nn.Module, Registrable):
    """
    Predicts an answer span of the context from context and question encodings. A head knows
    nothing of where the encodings came from (text, audio frames, BERT), only their shapes.

    `forward(context, context_mask, question, question_mask, span_start=None, span_end=None)`
    takes `context` (B x m x d), `question` (B x n x d), boolean masks (B x m), (B x n), and
    optional gold inclusive span indices (B,). It returns a dict with `span_start_logits`,
    `span_end_logits` (B x m, masked positions at the dtype's minimum), `best_span` (B x 2) when
    not training, and `loss` when gold spans are given.

    A head scores the context positions in `span_logits`; `forward` checks the encodings' width
    against `get_input_dim`, masks the logits, decodes the best span and computes the loss, the
    same for every head.

    # Parameters

    max_span_length : `int`, optional (default = `30`)
        Longest span, in positions, that decoding may return; 0 means no limit.
    """

    def __init__(self, max_span_length: int = 30) -> None:
        super().__init__()
        self.max_span_length = max_span_length

    def get_input_dim(self) -> int:
        raise NotImplementedError

    def span_logits(
        self, context: torch.Tensor, context_mask: torch.BoolTensor, question: torch.Tensor, question_mask: torch.BoolTensor
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """Start and end logits (B x m each) of every context position; `forward` masks them."""
        raise NotImplementedError

    def forward(  # type: ignore
        self,
        context: torch.Tensor,
        context_mask: torch.BoolTensor,
        question: torch.Tensor,
        question_mask: torch.BoolTensor,
        span_start: Optional[torch.LongTensor] = None,
        span_end: Optional[torch.LongTensor] = None,
    ) -> Dict[str, torch.Tensor]:
        width = self.get_input_dim()
        if context.size(-1) != width or question.size(-1) != width:
            raise ValueError(
                f"{type(self).__name__} expects encodings of size {width}, got context "
                f"{tuple(context.shape)} and question {tuple(question.shape)}"
            )
        start_logits, end_logits = self.span_logits(context, context_mask, question, question_mask)
        start_logits = mask_logits(start_logits, context_mask)
        end_logits = mask_logits(end_logits, context_mask)
        output = {"span_start_logits": start_logits, "span_end_logits": end_logits}
        if not self.training:
            output["best_span"] = best_span(start_logits, end_logits, self.max_span_length)
        if span_start is not None and span_end is not None:
            output["loss"] = span_loss(start_logits, end_logits, span_start, span_end)
        return output
