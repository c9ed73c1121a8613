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


def frames_after(lengths: torch.Tensor, kernel: int, stride: int) -> torch.Tensor:
    """Output steps of one unpadded convolution over inputs of `lengths` steps."""
    return torch.div(lengths - kernel, stride, rounding_mode="floor") + 1


class _MaskedChannelNorm(torch.autograd.Function):
    """Per-channel normalisation over the real steps of each row, with the affine parameters
    (a `GroupNorm` with a group per channel), forward and backward in a few passes over the
    tensor (half the time of autograd through the same formula); the outputs past a row's
    length are zero."""

    @staticmethod
    def forward(ctx, hidden, mask, weight, bias, eps):  # B x C x T, B x T x 1 (0/1), C, C
        count = mask.sum(dim=1, keepdim=True)  # B x 1 x 1
        mean = torch.bmm(hidden, mask) / count  # B x C x 1
        steps = mask.transpose(1, 2)  # B x 1 x T
        centred = (hidden - mean).mul_(steps)
        variance = torch.bmm(centred * centred, mask) / count
        rstd = torch.rsqrt(variance + eps)
        out = torch.addcmul(bias.view(1, -1, 1), centred, rstd * weight.view(1, -1, 1)).mul_(steps)
        ctx.save_for_backward(centred, rstd, mask, count, weight)
        return out

    @staticmethod
    def backward(ctx, grad):
        centred, rstd, mask, count, weight = ctx.saved_tensors
        grad = grad.contiguous()
        grad_sum = torch.bmm(grad, mask)  # B x C x 1: sums over the real steps
        grad_centred = torch.bmm(grad * centred, mask)
        scale = rstd * weight.view(1, -1, 1)
        grad_hidden = grad * scale
        grad_hidden.addcmul_(centred, -scale * rstd * rstd * grad_centred / count)
        grad_hidden.sub_(scale * grad_sum / count)
        grad_hidden.mul_(mask.transpose(1, 2))
        grad_weight = (grad_centred * rstd).sum(dim=(0, 2))
        grad_bias = grad_sum.sum(dim=(0, 2))
        return grad_hidden, None, grad_weight, grad_bias, None


def masked_group_norm(hidden: torch.Tensor, lengths: torch.Tensor, norm: torch.nn.GroupNorm) -> torch.Tensor:
    """
    `norm` applied to each row of the `B x C x T` batch `hidden` as if the row held only its first
    `lengths[i]` steps: the statistics of each group count the real steps alone. The outputs past
    a row's length are zero. A half-precision `hidden` (under `torch.autocast`) is normalised in
    float32 and returned in its own dtype.
    """
    if hidden.dtype in (torch.bfloat16, torch.float16) and torch.is_autocast_enabled(hidden.device.type):
        # under autocast: the statistics in float32
        with torch.autocast(device_type=hidden.device.type, enabled=False):
            return masked_group_norm(hidden.float(), lengths, norm).to(hidden.dtype)
    batch, channels, steps = hidden.shape
    mask = (torch.arange(steps, device=hidden.device).unsqueeze(0) < lengths.unsqueeze(1)).to(hidden.dtype)
    if norm.num_groups == channels and norm.affine:
        return _MaskedChannelNorm.apply(hidden.contiguous(), mask.unsqueeze(-1), norm.weight, norm.bias, norm.eps)
    groups = norm.num_groups
    grouped = hidden.reshape(batch, groups, channels // groups, steps)
    mask = mask.view(batch, 1, 1, steps)
    count = (lengths.to(hidden.dtype) * (channels // groups)).view(batch, 1, 1, 1)
    mean = (grouped * mask).sum(dim=(2, 3), keepdim=True) / count
    centred = grouped - mean
    variance = (centred * centred * mask).sum(dim=(2, 3), keepdim=True) / count
    normalised = (centred * torch.rsqrt(variance + norm.eps)).view(batch, channels, steps)
    if norm.affine:
        normalised = normalised * norm.weight.view(1, channels, 1) + norm.bias.view(1, channels, 1)
    return normalised * mask.view(batch, 1, steps)


def convolve_batched(
    feature_encoder: torch.nn.Module, waveform: torch.Tensor, lengths: torch.Tensor, shortest: int
) -> torch.Tensor:
    """
    What `convolve_per_utterance` computes, with each convolution run once on the whole padded
    batch. A frame of an unpadded convolution sees only the steps below it, so a row's first
    `(length - kernel) // stride + 1` outputs are those it would give alone; the group
    normalisation (where a layer has one) counts those steps only (`masked_group_norm`). A row
    shorter than `shortest` samples is padded with silence up to it, whatever the batch holds
    past its end. Frames past each row's last come out zero, as `convolve_per_utterance` pads
    them. A batch of 16 makes 16 times fewer operator calls, each 16 times larger: much faster
    where torch runs several threads on cores that other jobs share (every call ends waiting for
    all its threads), a little faster with one thread (docs/benchmarks.md).

    `feature_encoder` is a wav2vec2-style stack (`conv_layers`, each with `conv` and
    `activation` and, optionally, `layer_norm`: a `GroupNorm` over the channels and time, or a
    `LayerNorm` over the channels of each frame, as in transformers' wav2vec2 and SpeechT5);
    the input waveform gets no gradient (the stack's own forward would ask for one).
    """
    steps = max(int(lengths.max()), shortest)
    if waveform.size(1) < steps:
        waveform = torch.nn.functional.pad(waveform, (0, steps - waveform.size(1)))
    samples = torch.arange(steps, device=waveform.device).unsqueeze(0) < lengths.unsqueeze(1)
    hidden = (waveform[:, :steps] * samples.to(waveform.dtype)).unsqueeze(1)  # silence past each row's end
    lengths = lengths.clamp(min=shortest)
    for layer in feature_encoder.conv_layers:
        conv = layer.conv
        hidden = conv(hidden)
        lengths = frames_after(lengths, conv.kernel_size[0], conv.stride[0])
        norm = getattr(layer, "layer_norm", None)
        if isinstance(norm, torch.nn.GroupNorm):
            hidden = masked_group_norm(hidden, lengths, norm)
        elif isinstance(norm, torch.nn.LayerNorm):
            hidden = norm(hidden.transpose(-2, -1)).transpose(-2, -1)
        elif norm is not None:
            raise TypeError(f"convolve_batched: no batched form for a {type(norm).__name__} layer norm")
        hidden = layer.activation(hidden)
    mask = torch.arange(hidden.size(-1), device=hidden.device).unsqueeze(0) < lengths.unsqueeze(1)
    return (hidden * mask.unsqueeze(1).to(hidden.dtype)).transpose(1, 2)
