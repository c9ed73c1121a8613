from typing import Optional, Tuple

import torch
from allennlp.common import Registrable

from srcframework.common.errors import InputError


class FieldEncoder(torch.nn.Module, Registrable):
    """
    Turns the tensors of one input field (a TextField, an audio field, ...) into a sequence of
    vectors and its mask: `forward(field_tensors) -> (B x L x d encodings, B x L bool mask)`.
    A span model holds one for the context and one for the question, so any pair of modalities
    can feed the same span head.

    An encoder may also carry an auxiliary loss of its own, trained beside the span loss (the
    `speecht5` encoder's CTC loss over the question's characters): it then names it
    (`auxiliary_loss_name`, such as `"ctc_loss"`), gives its weight (`auxiliary_loss_weight`) and
    returns it with the encodings from `forward_with_auxiliary_loss(field_tensors, targets)`. The
    span model adds `weight * loss` where a batch carries targets; the span head never sees it.
    """

    # None: no auxiliary loss
    auxiliary_loss_name: Optional[str] = None
    auxiliary_loss_weight: float = 0.0

    def get_output_dim(self) -> int:
        raise NotImplementedError

    def forward(self, field_tensors) -> Tuple[torch.Tensor, torch.BoolTensor]:  # type: ignore
        raise NotImplementedError

    def forward_with_auxiliary_loss(self, field_tensors, targets) -> Tuple[torch.Tensor, torch.BoolTensor, torch.Tensor]:
        """`forward`'s encodings and mask, and the auxiliary loss (a scalar) of the same pass against `targets`."""
        raise InputError(f"{type(self).__name__} has no auxiliary loss, so it takes no targets")
