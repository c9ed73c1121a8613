"""Dropout whose mask is drawn as 16-bit random integers and kept as bytes.

`torch.nn.Dropout` on CPU draws its mask with `bernoulli_` (about 6 ns an element, on one core
whatever the thread count) and keeps it for the backward pass as float32. This module draws 64
random bits per four elements from the same generator (`torch.manual_seed` seeds it), keeps an
element where its 16 bits lie at or above the threshold `round(p * 65536)`, and keeps the mask as
bool: the mask costs about a quarter of the time and of the memory. Each element is dropped with
probability `round(p * 65536) / 65536` (0.2 gives 0.199997), and the kept ones are scaled by the
inverse of the kept share, so the expectation is the input's, as with `torch.nn.Dropout`. The
masks are not those `torch.nn.Dropout` would draw with the same seed
(`benchmarks/train_throughput.py` and docs/benchmarks.md: the training speed and the validation F1
over seeds, each way).
"""
import torch

_LEVELS = 65536


def keep_mask(shape: torch.Size, p: float, device: torch.device = None) -> torch.BoolTensor:
    """A bool mask of `shape`, each element True with probability `1 - round(p * 65536) / 65536`."""
    count = 1
    for size in shape:
        count *= size
    words = torch.empty((count + 3) // 4, dtype=torch.int64, device=device).random_(-(2**63), None)
    bits = words.view(torch.int16)[:count].view(shape)
    return bits >= round(p * _LEVELS) - _LEVELS // 2


def kept_share(p: float) -> float:
    """The probability that `keep_mask` keeps an element."""
    return 1.0 - round(p * _LEVELS) / _LEVELS


def masked_scale(inputs: torch.Tensor, keep: torch.BoolTensor, scale: float) -> torch.Tensor:
    """`inputs * keep * scale` in one pass: `mul` with a bool tensor first copies it into a float
    one, where `addcmul` with the mask's bytes as uint8 reads them as they are. The same values as
    `inputs.mul(keep).mul_(scale)`, bit for bit."""
    return torch.addcmul(inputs.new_zeros(()), inputs, keep.view(torch.uint8), value=scale)


class _ApplyMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inputs: torch.Tensor, keep: torch.BoolTensor, scale: float) -> torch.Tensor:
        ctx.save_for_backward(keep)
        ctx.scale = scale
        return masked_scale(inputs, keep, scale)

    @staticmethod
    def backward(ctx, grad: torch.Tensor):
        (keep,) = ctx.saved_tensors
        return masked_scale(grad, keep, ctx.scale), None, None


class _DroppedProjection(torch.autograd.Function):
    """`(inputs * keep * scale) @ weight` that keeps the inputs and the bool mask for the backward
    pass rather than the dropped-out copy of the inputs, which it rebuilds there."""

    @staticmethod
    def forward(ctx, inputs: torch.Tensor, keep: torch.BoolTensor, scale: float, weight: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(inputs, keep, weight)
        ctx.scale = scale
        return masked_scale(inputs, keep, scale) @ weight

    @staticmethod
    def backward(ctx, grad: torch.Tensor):
        inputs, keep, weight = ctx.saved_tensors
        grad = grad.to(inputs.dtype)  # under autocast the product was bfloat16; its gradients are the inputs' dtype
        grad_inputs = grad_weight = None
        if ctx.needs_input_grad[0]:
            grad_inputs = masked_scale(grad.unsqueeze(-1) * weight, keep, ctx.scale)
        if ctx.needs_input_grad[3]:
            dropped = masked_scale(inputs, keep, ctx.scale)
            grad_weight = dropped.reshape(-1, dropped.size(-1)).t() @ grad.reshape(-1)
        return grad_inputs, None, None, grad_weight


class Dropout(torch.nn.Module):
    """
    Inverted dropout, as `torch.nn.Dropout`, with a mask drawn from 16-bit random integers and
    kept as bool for the backward pass (the module docstring). Identity in eval mode or at p 0.

    # Parameters

    p : `float`, optional (default = `0.5`)
        The probability of dropping an element, in [0, 1).
    """

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p < 1.0:
            raise ValueError(f"dropout probability has to be in [0, 1), but got {p}")
        self.p = p

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0.0:
            return inputs
        keep = keep_mask(inputs.shape, self.p, inputs.device)
        return _ApplyMask.apply(inputs, keep, 1.0 / kept_share(self.p))

    def project(self, inputs: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        """`self(inputs) @ weight` for a weight vector (a linear layer with one output and no bias),
        keeping the bool mask rather than the dropped-out inputs for the backward pass."""
        if not self.training or self.p == 0.0:
            return inputs @ weight
        keep = keep_mask(inputs.shape, self.p, inputs.device)
        return _DroppedProjection.apply(inputs, keep, 1.0 / kept_share(self.p), weight)

    def extra_repr(self) -> str:
        return f"p={self.p}"
