from typing import Tuple

import torch
from allennlp.common import Registrable


class FieldEncoder(torch.nn.Module, Registrable):
    """
    Turns the tensors of one input field (a TextField, an audio field, ...) into a sequence of
    vectors and its mask: `forward(field_tensors) -> (B x L x d encodings, B x L bool mask)`.
    A span model holds one for the context and one for the question, so any pair of modalities
    can feed the same span head.
    """

    def get_output_dim(self) -> int:
        raise NotImplementedError

    def forward(self, field_tensors) -> Tuple[torch.Tensor, torch.BoolTensor]:  # type: ignore
        raise NotImplementedError
