from typing import Optional, Tuple

import torch

from srcframework.modules.dropout import Dropout
from srcframework.modules.seq2seq_encoders.padded_bilstm import PaddedBiLstm
from srcframework.modules.span_heads.span_head import SpanHead
from srcframework.modules.span_heads.span_ops import mask_logits


@SpanHead.register("bi_attention")
class BiAttentionSpanHead(SpanHead):
    """
    BiDAF's attention flow, modelling and output layers (Seo et al., 2017) over any pair of
    context (B x m x d) and question (B x n x d) encodings.

    - similarity S_ij = w . [c_i; q_j; c_i * q_j] (computed without building B x m x n x 3d);
    - context-to-question attention c~ = softmax_j(S) q, question-to-context attention
      h~ = softmax_i(max_j S) c;
    - G = [c; c~; c * c~; c * h~] (B x m x 4d);
    - M = BiLSTM(G) with `modeling_layers` layers; start logits = w1 . [G; M];
    - M2 = BiLSTM(M); end logits = w2 . [G; M2];
    - best span with start <= end < start + `max_span_length`; loss = CE(start) + CE(end).

    # Parameters

    input_dim : `int`
        d, the size of each context and question encoding vector (2 x the phrase LSTM's hidden size
        for BiDAF).
    modeling_dim : `int`, optional (default = `input_dim // 2`)
        Hidden size, per direction, of the modelling and span-end BiLSTMs.
    modeling_layers : `int`, optional (default = `2`)
    dropout : `float`, optional (default = `0.2`)
        Dropout between modelling layers, on M, and on the inputs of the output layers.
    max_span_length : `int`, optional (default = `30`)
        Longest span, in tokens, that decoding may return; 0 means no limit.
    """

    def __init__(
        self,
        input_dim: int,
        modeling_dim: Optional[int] = None,
        modeling_layers: int = 2,
        dropout: float = 0.2,
        max_span_length: int = 30,
    ) -> None:
        super().__init__(max_span_length)
        self.input_dim = input_dim
        modeling_dim = modeling_dim or input_dim // 2
        self.similarity = torch.nn.Linear(3 * input_dim, 1)
        self.modeling = PaddedBiLstm(4 * input_dim, modeling_dim, modeling_layers, dropout)
        self.span_end = PaddedBiLstm(2 * modeling_dim, modeling_dim)
        # no bias: a constant shift of every logit leaves the softmax unchanged
        self.start_output = torch.nn.Linear(4 * input_dim + 2 * modeling_dim, 1, bias=False)
        self.end_output = torch.nn.Linear(4 * input_dim + 2 * modeling_dim, 1, bias=False)
        self.dropout = Dropout(dropout)

    def get_input_dim(self) -> int:
        return self.input_dim

    def similarity_matrix(self, context: torch.Tensor, question: torch.Tensor) -> torch.Tensor:
        d = self.input_dim
        w = self.similarity.weight.view(-1)
        s_context = context @ w[:d]
        s_question = question @ w[d : 2 * d]
        s_product = (context * w[2 * d :]) @ question.transpose(1, 2)
        return s_product + s_context.unsqueeze(2) + s_question.unsqueeze(1) + self.similarity.bias

    def span_logits(
        self, context: torch.Tensor, context_mask: torch.BoolTensor, question: torch.Tensor, question_mask: torch.BoolTensor
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        similarity = self.similarity_matrix(context, question)
        c2q = torch.softmax(mask_logits(similarity, question_mask.unsqueeze(1)), dim=-1)
        attended_question = c2q @ question
        max_similarity = mask_logits(similarity, question_mask.unsqueeze(1)).max(dim=-1).values
        q2c = torch.softmax(mask_logits(max_similarity, context_mask), dim=-1)
        attended_context = (q2c.unsqueeze(1) @ context).expand_as(context)
        merged = torch.cat(
            [context, attended_question, context * attended_question, context * attended_context], dim=-1
        )
        modeled = self.dropout(self.modeling(merged, context_mask))
        end_modeled = self.span_end(modeled, context_mask)
        start_logits = self._output(self.start_output, merged, modeled)
        end_logits = self._output(self.end_output, merged, end_modeled)
        return start_logits.float(), end_logits.float()

    def _output(self, layer: torch.nn.Linear, merged: torch.Tensor, modeled: torch.Tensor) -> torch.Tensor:
        # w . dropout([G; M]) as w_G . dropout(G) + w_M . dropout(M): the same sum, without
        # copying G and M into one (B x m x 4d + 2 modeling_dim) tensor, and keeping the dropout
        # masks rather than dropped-out copies of G and M for the backward pass
        split = merged.size(-1)
        weight = layer.weight.view(-1)
        return self.dropout.project(merged, weight[:split]) + self.dropout.project(modeled, weight[split:])
