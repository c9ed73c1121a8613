"""The frames of a wav2vec2-style convolutional feature encoder (SpeechT5's speech prenet and
wav2vec 2.0 share it): the shortest input that gives a frame, and the convolutions run one
utterance at a time."""
from typing import Iterable

import torch


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
