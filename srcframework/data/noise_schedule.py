"""A noise schedule: which share of the training questions gets a noisy version in each epoch.

A reader with a `noise_schedule` decides, for every question of every epoch, whether it gets a
noisy version, from `(noise_seed, epoch, question id)` alone: not from the text of the noisy
copies, the batching, the order or how often the run was stopped. Two configs that differ only in
where the noisy text comes from (the augmented model and its clean twin, whose "noisy version" is
the clean question again) therefore read the same number of instances in every epoch.
"""
import hashlib
from typing import Dict, List, Optional

from allennlp.common import FromParams
from allennlp.common.checks import ConfigurationError


def epoch_seed(noise_seed: int, epoch: int) -> int:
    """The seed of one epoch's noise: a function of (noise_seed, epoch) alone, with no two pairs
    sharing one (unlike `noise_seed + epoch`, where seed 1's epoch 1 is seed 2's epoch 0)."""
    digest = hashlib.sha256(f"{noise_seed}\x1f{epoch}".encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


class NoiseScheduleStep(FromParams):
    """
    One step of a noise schedule, in force from `from_epoch` until the next step's.

    # Parameters

    from_epoch : `int`
        The first epoch (counting from 0) of this step.
    share : `float`
        The probability that a question gets a noisy version in an epoch of this step (0 to 1).
    weights : `Dict[str, float]`, optional (default = the previous step's, or equal weights)
        With `noisy_copies`: name -> weight of each copy, for the questions that get a noisy
        version. Names not given get weight 0.
    """

    def __init__(self, from_epoch: int, share: float, weights: Optional[Dict[str, float]] = None) -> None:
        if not isinstance(from_epoch, int) or from_epoch < 0:
            raise ConfigurationError(f"noise_schedule: from_epoch must be a whole number >= 0, not {from_epoch!r}")
        if not 0.0 <= float(share) <= 1.0:
            raise ConfigurationError(f"noise_schedule: share must be between 0 and 1, not {share!r}")
        if weights is not None:
            values = [float(w) for w in weights.values()]
            if any(w < 0 or w != w for w in values) or not sum(values) > 0:
                raise ConfigurationError(f"noise_schedule: weights must be non-negative and not all zero, got {weights}")
        self.from_epoch = from_epoch
        self.share = float(share)
        self.weights = None if weights is None else {name: float(w) for name, w in weights.items()}


class NoiseSchedule:
    """The steps of a schedule, checked: the first starts at epoch 0, the rest in increasing order,
    and each step's weights name only the copies that `copy_names` lists. A reader without copies
    (the clean twin, which reads the drawn questions clean) ignores the weights, so that both
    twins can share one schedule."""

    def __init__(self, steps: List[NoiseScheduleStep], copy_names: Optional[List[str]] = None) -> None:
        if not steps:
            raise ConfigurationError("noise_schedule needs at least one step")
        starts = [step.from_epoch for step in steps]
        if starts[0] != 0 or starts != sorted(set(starts)):
            raise ConfigurationError(f"noise_schedule: from_epoch must start at 0 and increase, got {starts}")
        for step in steps:
            unknown = sorted(set(step.weights or {}) - set(copy_names or []))
            if unknown and copy_names:
                known = ", ".join(copy_names)
                raise ConfigurationError(f"noise_schedule: weights name unknown copies {unknown}; known: {known}")
        self.steps = steps
        self.copy_names = list(copy_names or [])

    def step(self, epoch: int) -> NoiseScheduleStep:
        return [step for step in self.steps if step.from_epoch <= epoch][-1]

    def weights(self, epoch: int) -> Dict[str, float]:
        """The copy weights in force at `epoch` (a step without weights keeps the previous ones)."""
        weights = {name: 1.0 for name in self.copy_names}
        for step in self.steps:
            if step.from_epoch <= epoch and step.weights is not None:
                weights = {name: step.weights.get(name, 0.0) for name in self.copy_names}
        return weights

    def describe(self) -> List[dict]:
        return [{"from_epoch": s.from_epoch, "share": s.share, "weights": s.weights} for s in self.steps]
