"""The two directions of a bidirectional LSTM layer run side by side, each on one core.

An LSTM at BiDAF's sizes (a batch of 40, 100 units a direction) steps through time in small
matrix products that one core runs nearly as fast as two: the second intra-op thread gains
little. The directions are independent, though, so with two or more torch threads this runs the
forward direction and the backward one at the same time, each in its own worker thread with one
intra-op thread, in the forward pass and again in the backward pass (each direction's gradient in
its own worker), and the rest of the model keeps its threads. The outputs are the same
computation as running the directions one after the other (`tests/modules/seq2seq_encoders/`);
with one torch thread they do run one after the other.
"""
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, List, Optional, Tuple

import torch

_lock = threading.Lock()
_pool: Optional[ThreadPoolExecutor] = None


def _one_thread(autocast: Optional[torch.dtype], task: Callable, *args):
    torch.set_num_threads(1)
    if autocast is None:
        return task(*args)
    with torch.autocast("cpu", dtype=autocast):  # autocast is per thread: the caller's, here too
        return task(*args)


def _in_parallel(first: Tuple, second: Tuple) -> Tuple:
    """`first[0](*first[1:])` and `second[0](*second[1:])` at the same time, each in a worker thread
    with one torch thread and the caller's CPU autocast (which is per thread). `torch.set_num_threads`
    is process-wide, so the caller's count is put back once both have ended."""
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(2, thread_name_prefix="bilstm")
    threads = torch.get_num_threads()
    autocast = torch.get_autocast_dtype("cpu") if torch.is_autocast_enabled("cpu") else None
    try:
        futures = [_pool.submit(_one_thread, autocast, *first), _pool.submit(_one_thread, autocast, *second)]
        return futures[0].result(), futures[1].result()
    finally:
        torch.set_num_threads(threads)


def side_by_side() -> bool:
    """Whether the directions run at the same time: with two or more torch threads."""
    return torch.get_num_threads() >= 2


def _run(direction: Callable[[torch.Tensor], torch.Tensor], inputs: torch.Tensor):
    leaf = inputs.detach().requires_grad_(inputs.requires_grad)
    with torch.enable_grad():
        output = direction(leaf)
    return leaf, output


def _gradients(leaf: torch.Tensor, output: torch.Tensor, weights: List[torch.Tensor], grad: torch.Tensor):
    wanted = ([leaf] if leaf.requires_grad else []) + weights
    grads = torch.autograd.grad(output, wanted, grad, allow_unused=True)
    if not leaf.requires_grad:
        grads = (None,) + tuple(grads)
    return grads


class _BothDirections(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inputs, forward_direction, backward_direction, forward_count, *weights):
        (ctx.leaf_f, ctx.out_f), (ctx.leaf_b, ctx.out_b) = _in_parallel(
            (_run, forward_direction, inputs), (_run, backward_direction, inputs)
        )
        ctx.weights_f, ctx.weights_b = list(weights[:forward_count]), list(weights[forward_count:])
        return torch.cat([ctx.out_f.detach(), ctx.out_b.detach()], dim=-1)

    @staticmethod
    def backward(ctx, grad):
        size = ctx.out_f.size(-1)
        grads_f, grads_b = _in_parallel(
            (_gradients, ctx.leaf_f, ctx.out_f, ctx.weights_f, grad[..., :size].contiguous()),
            (_gradients, ctx.leaf_b, ctx.out_b, ctx.weights_b, grad[..., size:].contiguous()),
        )
        del ctx.out_f, ctx.out_b, ctx.leaf_f, ctx.leaf_b
        input_grad = None
        if grads_f[0] is not None:
            input_grad = grads_f[0] + grads_b[0]
        return (input_grad, None, None, None) + tuple(grads_f[1:]) + tuple(grads_b[1:])


def both_directions(
    inputs: torch.Tensor,
    forward_direction: Callable[[torch.Tensor], torch.Tensor],
    backward_direction: Callable[[torch.Tensor], torch.Tensor],
    forward_weights: List[torch.Tensor],
    backward_weights: List[torch.Tensor],
) -> torch.Tensor:
    """`cat([forward_direction(inputs), backward_direction(inputs)], -1)`, the two run side by side
    where `side_by_side()`; each weight list holds the parameters its direction uses."""
    if not side_by_side():
        return torch.cat([forward_direction(inputs), backward_direction(inputs)], dim=-1)
    if not torch.is_grad_enabled():
        return torch.cat(_in_parallel((forward_direction, inputs), (backward_direction, inputs)), dim=-1)
    weights: Tuple[torch.Tensor, ...] = tuple(forward_weights) + tuple(backward_weights)
    return _BothDirections.apply(inputs, forward_direction, backward_direction, len(forward_weights), *weights)
