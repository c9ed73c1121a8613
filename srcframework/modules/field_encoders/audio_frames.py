"""The checked waveform and lengths of an `AudioField` batch (the convolutions over them are in
`common/conv_frames.py`)."""
from typing import Dict, Tuple

import torch
from allennlp.nn.util import get_mask_from_sequence_lengths


def audio_lengths(field_tensors: Dict[str, torch.Tensor]) -> Tuple[torch.Tensor, torch.Tensor]:
    """The `B x T` waveform of an audio field's batch and the number of real samples of each row,
    after checking the `waveform` / `mask` pair (the mask must be True on a prefix of each row)."""
    if not isinstance(field_tensors, dict) or "waveform" not in field_tensors or "mask" not in field_tensors:
        keys = sorted(field_tensors) if isinstance(field_tensors, dict) else type(field_tensors).__name__
        raise ValueError(f"an audio encoder needs an AudioField batch {{'waveform', 'mask'}}, got {keys}")
    waveform, mask = field_tensors["waveform"], field_tensors["mask"].bool()
    if waveform.dim() != 2 or mask.shape != waveform.shape:
        raise ValueError(
            f"waveform must be B x T with a mask of the same shape; got {tuple(waveform.shape)} and {tuple(mask.shape)}"
        )
    lengths = mask.sum(-1)
    if not torch.equal(mask, get_mask_from_sequence_lengths(lengths, mask.size(1))):
        raise ValueError("the audio mask must be True on the first samples of each row and False after them")
    if (lengths == 0).any():
        empty = torch.nonzero(lengths == 0).view(-1).tolist()
        raise ValueError(f"rows {empty} of the audio batch hold no samples")
    return waveform, lengths
