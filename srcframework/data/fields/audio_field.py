from typing import Any, Dict, Iterable, List, Optional

import numpy
import torch
from allennlp.data import Instance
from allennlp.data.fields import Field


class AudioField(Field[Dict[str, torch.Tensor]]):
    """
    A 1-D float32 waveform (16 kHz unless told otherwise), such as a spoken question.

    `as_tensor` gives `{"waveform": FloatTensor[T], "mask": BoolTensor[T]}`, zero-padded to
    `padding_lengths["num_samples"]`; a batch stacks them to `B x T`. `len(field)` is the number
    of samples, so a `bucket` batch sampler with `sorting_keys: ["question"]` batches questions
    of similar duration together.

    # Parameters

    waveform : `numpy.ndarray` or `torch.Tensor`
        1-D samples; kept as float32.
    sample_rate : `int`, optional (default = `16000`)
    source : `str`, optional
        Where the audio came from (a file path), shown by `str(field)`.
    """

    __slots__ = ["waveform", "sample_rate", "duration", "source"]

    def __init__(self, waveform, sample_rate: int = 16000, source: Optional[str] = None) -> None:
        if isinstance(waveform, torch.Tensor):
            waveform = waveform.detach().cpu().numpy()
        waveform = numpy.ascontiguousarray(waveform, dtype=numpy.float32)
        if waveform.ndim != 1:
            raise ValueError(f"AudioField needs a 1-D waveform, got shape {waveform.shape} ({source or 'waveform'})")
        if sample_rate <= 0:
            raise ValueError(f"sample_rate must be positive, got {sample_rate}")
        self.waveform = waveform
        self.sample_rate = int(sample_rate)
        self.duration = waveform.shape[0] / self.sample_rate
        self.source = source

    def get_padding_lengths(self) -> Dict[str, int]:
        return {"num_samples": int(self.waveform.shape[0])}

    def as_tensor(self, padding_lengths: Dict[str, int]) -> Dict[str, torch.Tensor]:
        length = padding_lengths["num_samples"]
        size = self.waveform.shape[0]
        if length < size:
            raise ValueError(f"cannot pad {size} samples to {length}")
        waveform = torch.zeros(length, dtype=torch.float32)
        waveform[:size] = torch.from_numpy(self.waveform)
        mask = torch.zeros(length, dtype=torch.bool)
        mask[:size] = True
        return {"waveform": waveform, "mask": mask}

    def empty_field(self) -> "AudioField":
        return AudioField(numpy.zeros(0, dtype=numpy.float32), self.sample_rate)

    def batch_tensors(self, tensor_list: List[Dict[str, torch.Tensor]]) -> Dict[str, torch.Tensor]:  # type: ignore
        return {key: torch.stack([tensors[key] for tensors in tensor_list]) for key in tensor_list[0]}

    def __len__(self) -> int:
        return int(self.waveform.shape[0])

    def __str__(self) -> str:
        where = f" from {self.source}" if self.source else ""
        return f"AudioField of {len(self)} samples ({self.duration:.2f} s at {self.sample_rate} Hz){where}."

    def __eq__(self, other) -> bool:
        if isinstance(other, AudioField):
            return (
                self.sample_rate == other.sample_rate
                and self.source == other.source
                and numpy.array_equal(self.waveform, other.waveform)
            )
        return NotImplemented

    def human_readable_repr(self) -> Dict[str, Any]:
        return {
            "num_samples": len(self),
            "sample_rate": self.sample_rate,
            "duration": round(self.duration, 3),
            "source": self.source,
        }


def padding_fraction(batches: Iterable[Iterable[Any]], field_name: str = "question") -> float:
    """
    The share of padding in a list of batches: padded samples / all samples after padding, where
    each batch is padded to its longest item. A batch item is a length (int), an `AudioField` (or
    any sized field), or an `Instance` (its `field_name` field is measured). 0.0 for no samples.
    """
    padded = total = 0
    for batch in batches:
        lengths = [_length(item, field_name) for item in batch]
        if not lengths:
            continue
        longest = max(lengths)
        total += longest * len(lengths)
        padded += sum(longest - length for length in lengths)
    return padded / total if total else 0.0


def _length(item: Any, field_name: str) -> int:
    if isinstance(item, Instance):
        return len(item.fields[field_name])
    if isinstance(item, (int, numpy.integer)):
        return int(item)
    return len(item)
