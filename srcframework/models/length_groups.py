"""Running a batch whose contexts differ widely in length as groups of similar length.

A batch is padded to its longest context, so one context of 40,000 tokens among 31 of 150 makes
every row cost 40,000 LSTM steps and 40,000 positions of memory: 32 times the work of that
context alone. `SpanQA` instead splits such a batch (`needs_groups`) into groups whose longest
context is at most `RATIO` times their shortest (`length_groups`), trims each group's context
tensors to its own longest context (`trim_rows`), runs them one after another, and puts the
outputs back in batch order at the batch's width (`merge_outputs`). The cost is then about the sum
of the contexts' lengths, and the memory that of the longest context alone, whatever the batch
size. Every row is computed over its own tokens only in either case (masks, padded LSTMs), so the
spans are the same.

Rows of the same long context (several questions on one 40,000-token context, as `allennlp
evaluate` and `predict --batch-size` batch them) need no padding, but together they would still
cost rows x tokens of memory at once. A group therefore also holds at most `max_positions` context
positions (rows x its longest context, `MAX_POSITIONS` by default in `SpanQA`): the rows of a
larger group run in several groups, one after another. A single row longer than that runs alone.
Outside training such rows also share one encoding of their context (`same_rows` finds them).
"""
import hashlib
from typing import Any, Dict, List, Optional

import torch

LONG_CONTEXT = 1000  # tokens: a batch whose longest context is shorter runs as it is
PADDING_WASTE = 2.0  # a batch is split when its padded size is more than this times its tokens
RATIO = 2.0  # the longest context of a group is at most this times its shortest
MAX_POSITIONS = 50000  # rows x longest context of a group: about 600 MB for BiDAF (docs/benchmarks.md)


def needs_groups(lengths: List[int], max_positions: Optional[int] = None) -> bool:
    """Whether a batch with these context lengths is worth running in groups: its longest context
    has at least `LONG_CONTEXT` tokens and padding would more than `PADDING_WASTE`-fold its work,
    or the padded batch (rows x longest context) holds more than `max_positions` positions."""
    if len(lengths) < 2:
        return False
    if max_positions is not None and len(lengths) * max(lengths) > max_positions:
        return True
    if max(lengths) < LONG_CONTEXT:
        return False
    return len(lengths) * max(lengths) > PADDING_WASTE * max(1, sum(lengths))


def length_groups(lengths: List[int], ratio: float = RATIO, max_positions: Optional[int] = None) -> List[List[int]]:
    """The batch rows in groups of similar context length (each group's longest at most `ratio`
    times its shortest), shortest first; every row in exactly one group. With `max_positions`, a
    group also holds at most that many positions (rows x its longest context), unless it is a
    single row."""
    groups: List[List[int]] = []
    shortest = 0
    for row in sorted(range(len(lengths)), key=lambda k: lengths[k]):
        # rows come shortest first, so this row is the longest of its group
        full = max_positions is not None and groups and (len(groups[-1]) + 1) * lengths[row] > max_positions
        if not groups or lengths[row] > ratio * max(1, shortest) or full:
            groups.append([])
            shortest = lengths[row]
        groups[-1].append(row)
    return groups


def select_rows(value: Any, rows: torch.LongTensor, batch_size: int) -> Any:
    """`value` (a tensor, or dicts, lists and tuples of them) with only the batch rows `rows` of
    every tensor whose first dimension is the batch; anything else as it is."""
    if isinstance(value, torch.Tensor):
        return value.index_select(0, rows) if value.dim() > 0 and value.size(0) == batch_size else value
    if isinstance(value, dict):
        return {key: select_rows(item, rows, batch_size) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(select_rows(item, rows, batch_size) for item in value)
    return value


def can_trim(field_tensors: Dict[str, Dict[str, torch.Tensor]], width: int) -> bool:
    """Whether every tensor of a text field is indexed by token position in its second dimension
    (`B x width x ...`), so that a group can be cut to its own longest context. Indexers whose
    tensors have another length (word pieces, for instance) cannot."""
    tensors = [tensor for group in field_tensors.values() for tensor in group.values()]
    return bool(tensors) and all(t.dim() >= 2 and t.size(1) == width for t in tensors)


def same_rows(field_tensors: Dict[str, Dict[str, torch.Tensor]], lengths: List[int]) -> List[int]:
    """For each batch row, the first row whose text field holds the same thing: the same length
    and, over it, the same values in every tensor (`B x width x ...`, as `can_trim` requires)."""
    tensors = [tensor.cpu() for group in field_tensors.values() for tensor in group.values()]
    first: List[int] = []
    seen: Dict[Any, int] = {}
    for row, length in enumerate(lengths):
        digest = hashlib.blake2b(digest_size=16)
        for tensor in tensors:
            digest.update(tensor[row, :length].contiguous().numpy().tobytes())
        key = (length, digest.digest())
        match = seen.get(key)
        if match is not None and all(torch.equal(t[row, :length], t[match, :length]) for t in tensors):
            first.append(match)
        else:
            seen.setdefault(key, row)
            first.append(row)
    return first


def trim_rows(field_tensors: Dict[str, Dict[str, torch.Tensor]], rows: torch.LongTensor, length: int):
    """The text field's tensors of the batch rows `rows`, cut to the first `length` positions."""
    return {
        name: {key: tensor.index_select(0, rows)[:, :length] for key, tensor in group.items()}
        for name, group in field_tensors.items()
    }


def merge_outputs(
    parts: List[Dict[str, torch.Tensor]], groups: List[List[int]], batch_size: int, width: int, padded_keys
) -> Dict[str, torch.Tensor]:
    """The outputs of the groups in batch order. Keys in `padded_keys` (B x positions, such as the
    span logits) are padded to `width` positions with the dtype's minimum, as masked positions
    are; `loss` (a batch mean) is the mean of the groups' losses weighted by their sizes; any other
    tensor with a row per batch row is put back row by row, and left out where the groups' shapes
    differ."""
    merged: Dict[str, torch.Tensor] = {}
    for key in parts[0]:
        values = [part[key] for part in parts]
        if key == "loss":
            merged[key] = sum(value * len(rows) for value, rows in zip(values, groups)) / batch_size
            continue
        first = values[0]
        if not isinstance(first, torch.Tensor) or first.dim() == 0:
            continue
        if key in padded_keys:
            shape = (batch_size, width, *first.shape[2:])
            out = first.new_full(shape, torch.finfo(first.dtype).min if first.is_floating_point() else 0)
            for value, rows in zip(values, groups):
                out[rows, : value.size(1)] = value
        elif all(value.shape[1:] == first.shape[1:] for value in values):
            out = first.new_zeros((batch_size, *first.shape[1:]))
            for value, rows in zip(values, groups):
                out[rows] = value
        else:
            continue
        merged[key] = out
    return merged
