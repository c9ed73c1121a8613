"""From an `AudioField` batch to convolutional frames, one utterance at a time."""
from typing import Dict, Iterable, Tuple

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


def min_samples(conv_kernel: Iterable[int], conv_stride: Iterable[int]) -> int:
    """The fewest samples that give one frame out of a convolution stack."""
    samples = 1
    for kernel, stride in reversed(list(zip(conv_kernel, conv_stride))):
        samples = (samples - 1) * stride + kernel
    return samples


def convolve_per_utterance(
    feature_encoder: torch.nn.Module, waveform: torch.Tensor, lengths: torch.Tensor, shortest: int
) -> torch.Tensor:
    """
    The `B x L x C` output of a wav2vec2-style convolutional feature encoder, run on each row's
    real samples alone and zero-padded to the longest. Run on the padded batch instead, the
    group normalisation of the first layer (per channel, over all time steps) would mix the
    padding into every frame's statistics. A row shorter than `shortest` samples (one frame) is
    padded with silence up to it.
    """
    outputs = []
    for row, length in zip(waveform, lengths.tolist()):
        samples = row[:length]
        if length < shortest:
            samples = torch.nn.functional.pad(samples, (0, shortest - length))
        outputs.append(feature_encoder(samples.unsqueeze(0))[0].transpose(0, 1))
    return torch.nn.utils.rnn.pad_sequence(outputs, batch_first=True)
