import logging
import random
from typing import Any, Dict, Iterator, Optional

import numpy
import torch
from allennlp.training.callbacks.callback import TrainerCallback

logger = logging.getLogger(__name__)


def random_states() -> Dict[str, Any]:
    """The states of the random generators a training draws from: Python's, numpy's and torch's."""
    name, keys, position, has_gauss, cached = numpy.random.get_state()
    # plain lists and tensors, which a checkpoint loaded with torch.load(weights_only=True) can hold
    return {"python": random.getstate(), "numpy": [name, keys.tolist(), position, has_gauss, cached],
            "torch": torch.get_rng_state()}


def set_random_states(states: Dict[str, Any]) -> None:
    python = states["python"]
    random.setstate((python[0], tuple(python[1]), python[2]))
    name, keys, position, has_gauss, cached = states["numpy"]
    numpy.random.set_state((name, numpy.array(keys, dtype=numpy.uint32), position, has_gauss, cached))
    torch.set_rng_state(states["torch"])


class _EpochTellingLoader:
    """The trainer's training data loader, which tells the reader the epoch each time the trainer
    starts an epoch's iteration (it does, for every epoch, skipped ones included), and puts back
    the random generators' states of the checkpoint when the first epoch a resumed run trains
    starts."""

    def __init__(self, loader, reader) -> None:
        self._loader = loader
        self._reader = reader
        self._epoch = 0
        self.resume_at: Optional[int] = None
        self.resume_states: Optional[Dict[str, Any]] = None

    def __iter__(self) -> Iterator:
        if self._reader is not None:
            ReaderEpochCallback._set(self._reader, self._epoch)
        if self.resume_states is not None and self._epoch == self.resume_at:
            set_random_states(self.resume_states)
            logger.info("the random generators continue from the checkpoint of epoch %d", self._epoch)
            self.resume_states = None
        self._epoch += 1
        return iter(self._loader)

    def __len__(self) -> int:
        return len(self._loader)

    def __getattr__(self, name: str) -> Any:
        if name == "_loader":  # not set yet (a copy being made): no recursion
            raise AttributeError(name)
        return getattr(self._loader, name)


@TrainerCallback.register("reader_epoch")
class ReaderEpochCallback(TrainerCallback):
    """
    Tells the training data's reader which epoch it reads, so that its noise is a function of
    `(noise_seed, epoch, question id)`: a run stopped and resumed with `allennlp train --recover`
    reads exactly what the same run straight through reads. Any reader with a `set_epoch(epoch)`
    method takes part (the SQuAD-format and SQuAD-SRC readers do); for others the callback only
    carries the random generators (below).

    The reader learns the epoch when the trainer starts iterating over that epoch's batches. A
    resumed run iterates over the epochs it skips as well (AllenNLP re-reads them and trains on
    none of their batches), so every read starts in the same epoch as in a straight run, also when
    one read spans several epochs (`data_loader.batches_per_epoch` smaller than the data: a read
    goes on into the next epochs and keeps the epoch it started in).

    A data loader that keeps every instance in memory reads once, so its noise would be drawn
    once for the whole run: the callback refuses it with a one-line error.

    The callback also carries the random generators (Python's, numpy's and torch's) across a
    stop: each checkpoint keeps their states, and a resumed run puts them back when its first
    epoch to train starts. AllenNLP seeds them afresh when a run starts and does not keep them,
    so without this a resumed run draws other dropout masks and another batch order than the same
    run straight through, and ends with other weights. With it, `--recover` (and a restored
    snapshot) ends with the straight run's weights, bit for bit, on the same machine and threads.

        trainer: { callbacks: [{ type: 'reader_epoch' }] }

    # Parameters

    serialization_dir : `str`
        Passed by the trainer.
    """

    def __init__(self, serialization_dir: str) -> None:
        super().__init__(serialization_dir)
        self._checkpoint_states: Optional[Dict[str, Any]] = None

    def state_dict(self) -> Dict[str, Any]:
        """Called when the trainer saves a checkpoint, at the end of an epoch."""
        return {"random_states": random_states()}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        self._checkpoint_states = state_dict.get("random_states")  # none in checkpoints of older runs

    def on_start(self, trainer, is_primary: bool = True, **kwargs) -> None:
        reader = self._reader(trainer)
        loader = trainer.data_loader
        noisy = reader is not None and any(getattr(reader, name, None) for name in ("noise_schedule", "question_noise", "audio_perturbation"))
        if noisy and hasattr(loader, "max_instances_in_memory") and loader.max_instances_in_memory is None:
            from allennlp.common.checks import ConfigurationError

            raise ConfigurationError(
                "reader_epoch: the training data loader keeps every instance in memory, so its noise "
                "would be drawn once; set data_loader.max_instances_in_memory"
            )
        if not isinstance(loader, _EpochTellingLoader):
            loader = trainer.data_loader = _EpochTellingLoader(loader, reader)
        if self._checkpoint_states is not None:
            loader.resume_at = trainer._start_after_epochs_completed
            loader.resume_states = self._checkpoint_states

    @staticmethod
    def _reader(trainer) -> Optional[Any]:
        reader = getattr(trainer.data_loader, "reader", None)
        return reader if hasattr(reader, "set_epoch") else None

    @staticmethod
    def _set(reader, epoch: int) -> None:
        reader.set_epoch(epoch)
        logger.info("the training reader draws epoch %d", epoch)
