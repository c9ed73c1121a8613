from typing import Dict, Optional

import torch
from allennlp.common import Registrable


class SpanHead(torch.nn.Module, Registrable):
    """
    Predicts an answer span of the context from context and question encodings. A head knows
    nothing of where the encodings came from (text, audio frames, BERT), only their shapes.

    `forward(context, context_mask, question, question_mask, span_start=None, span_end=None)`
    takes `context` (B x m x d), `question` (B x n x d), boolean masks (B x m), (B x n), and
    optional gold inclusive span indices (B,). It returns a dict with `span_start_logits`,
    `span_end_logits` (B x m, masked positions at the dtype's minimum), `best_span` (B x 2) when
    not training, and `loss` when gold spans are given.
    """

    def get_input_dim(self) -> int:
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
        raise NotImplementedError
