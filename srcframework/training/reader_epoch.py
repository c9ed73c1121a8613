import logging
from typing import Any, Iterator, Optional

from allennlp.training.callbacks.callback import TrainerCallback

logger = logging.getLogger(__name__)


class _EpochTellingLoader:
    """The trainer's training data loader, which tells the reader the epoch each time the trainer
    starts an epoch's iteration (it does, for every epoch, skipped ones included)."""

    def __init__(self, loader, reader) -> None:
        self._loader = loader
        self._reader = reader
        self._epoch = 0

    def __iter__(self) -> Iterator:
        ReaderEpochCallback._set(self._reader, self._epoch)
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
    method takes part (the SQuAD-format and SQuAD-SRC readers do); for others the callback does
    nothing.

    The reader learns the epoch when the trainer starts iterating over that epoch's batches. A
    resumed run iterates over the epochs it skips as well (AllenNLP re-reads them and trains on
    none of their batches), so every read starts in the same epoch as in a straight run, also when
    one read spans several epochs (`data_loader.batches_per_epoch` smaller than the data: a read
    goes on into the next epochs and keeps the epoch it started in).

    A data loader that keeps every instance in memory reads once, so its noise would be drawn
    once for the whole run: the callback refuses it with a one-line error.

        trainer: { callbacks: [{ type: 'reader_epoch' }] }

    # Parameters

    serialization_dir : `str`
        Passed by the trainer.
    """

    def on_start(self, trainer, is_primary: bool = True, **kwargs) -> None:
        reader = self._reader(trainer)
        if reader is None:
            return
        loader = trainer.data_loader
        noisy = any(getattr(reader, name, None) for name in ("noise_schedule", "question_noise", "audio_perturbation"))
        if noisy and hasattr(loader, "max_instances_in_memory") and loader.max_instances_in_memory is None:
            from allennlp.common.checks import ConfigurationError

            raise ConfigurationError(
                "reader_epoch: the training data loader keeps every instance in memory, so its noise "
                "would be drawn once; set data_loader.max_instances_in_memory"
            )
        if not isinstance(loader, _EpochTellingLoader):
            trainer.data_loader = _EpochTellingLoader(loader, reader)

    @staticmethod
    def _reader(trainer) -> Optional[Any]:
        reader = getattr(trainer.data_loader, "reader", None)
        return reader if hasattr(reader, "set_epoch") else None

    @staticmethod
    def _set(reader, epoch: int) -> None:
        reader.set_epoch(epoch)
        logger.info("the training reader draws epoch %d", epoch)
