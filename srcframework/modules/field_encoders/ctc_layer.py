"""
The CTC output layer over characters that a speech field encoder can carry beside its encodings
(the `speecht5` encoder's `ctc_weight`): the same characters as the `speecht5_ctc` recogniser
(`speecht5_ctc_network.CHARACTERS`, id 0 the blank), read from a recogniser's folder where it holds
one, and the CTC loss of its logits against padded targets (the `squad_src` reader's
`ctc_targets` field: each question's character ids, padded with -1).
"""
import json
import logging
import os

import torch
from allennlp.common.checks import ConfigurationError

from srcframework.speech.speecht5_ctc_network import CHARACTERS, HEAD_FILE, TARGET_PADDING, VOCABULARY_FILE

logger = logging.getLogger(__name__)


def ctc_layer(model_name: str, hidden_size: int, load_weights: bool = True) -> torch.nn.Linear:
    """A linear layer from `hidden_size` to `len(CHARACTERS)` CTC logits: the recogniser's own when
    the folder `model_name` holds one (`ctc_head.safetensors`, written by `save_speecht5_ctc` or
    `SpeechT5CtcNetwork.save_pretrained`) and `load_weights`; otherwise freshly initialised. A
    folder whose layer has other characters or another width is a `ConfigurationError`."""
    layer = torch.nn.Linear(hidden_size, len(CHARACTERS))
    head = os.path.join(model_name, HEAD_FILE)
    if not load_weights:
        return layer
    if not os.path.isfile(head):
        logger.info("%s holds no CTC layer (%s): the CTC layer starts fresh", model_name, HEAD_FILE)
        return layer
    from safetensors.torch import load_file

    vocabulary = os.path.join(model_name, VOCABULARY_FILE)
    characters = None
    if os.path.isfile(vocabulary):
        with open(vocabulary, encoding="utf-8") as handle:
            characters = json.load(handle).get("characters")
    if characters != CHARACTERS:
        raise ConfigurationError(
            f"{model_name}: its CTC layer is over other characters ({VOCABULARY_FILE}) than speecht5_ctc's {CHARACTERS}"
        )
    state = load_file(head)
    shapes = {name: tuple(value.shape) for name, value in state.items()}
    if shapes != {"weight": (len(CHARACTERS), hidden_size), "bias": (len(CHARACTERS),)}:
        raise ConfigurationError(f"{model_name}: its CTC layer {shapes} does not fit an encoder of width {hidden_size}")
    layer.load_state_dict(state)
    logger.info("the CTC layer starts from %s", head)
    return layer


def ctc_loss(logits: torch.Tensor, mask: torch.BoolTensor, targets: torch.Tensor) -> torch.Tensor:
    """The CTC loss of `B x L x C` logits over the `B x L` frame mask against `B x S` character ids
    padded with `TARGET_PADDING`, as the `speecht5_ctc` model takes it: blank 0, each row's loss
    divided by its target length, the batch's mean, an impossible alignment counted 0."""
    if targets.dim() != 2 or targets.size(0) != logits.size(0):
        raise ValueError(
            f"CTC targets must be B x S with B = {logits.size(0)} (the batch), got {tuple(targets.shape)}"
        )
    real = targets != TARGET_PADDING
    if bool((targets[real] < 1).any()) or bool((targets[real] >= logits.size(-1)).any()):
        raise ValueError(f"CTC targets must be character ids from 1 to {logits.size(-1) - 1} (0 is the blank)")
    log_probs = torch.log_softmax(logits.float(), dim=-1).transpose(0, 1)
    return torch.nn.functional.ctc_loss(
        log_probs,
        targets[real].to(logits.device),
        mask.sum(-1),
        real.sum(-1),
        blank=0,
        reduction="mean",
        zero_infinity=True,
    )
