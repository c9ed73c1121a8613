import logging
from typing import Any, Dict, Optional

from allennlp.training.callbacks.callback import TrainerCallback

logger = logging.getLogger(__name__)


@TrainerCallback.register("reader_epoch")
class ReaderEpochCallback(TrainerCallback):
    """
    Tells the training data's reader which epoch it reads, so that its noise is a function of
    `(noise_seed, epoch, question id)`: a run stopped and resumed with `allennlp train --recover`
    reads exactly what the same run straight through reads. Any reader with a `set_epoch(epoch)`
    method takes part (the SQuAD-format readers do); for others the callback does nothing.

    AllenNLP re-reads the epochs a resumed run skips (and trains on none of their batches); those
    reads are drawn for the first epoch still to train, which no model sees.

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
        if getattr(reader, "noise_schedule", None) or getattr(reader, "question_noise", None):
            if hasattr(loader, "max_instances_in_memory") and loader.max_instances_in_memory is None:
                from allennlp.common.checks import ConfigurationError

                raise ConfigurationError(
                    "reader_epoch: the training data loader keeps every instance in memory, so its noise "
                    "would be drawn once; set data_loader.max_instances_in_memory"
                )
        self._set(reader, trainer._start_after_epochs_completed)

    def on_epoch(
        self, trainer, metrics: Dict[str, Any], epoch: int, is_primary: bool = True, **kwargs
    ) -> None:
        reader = self._reader(trainer)
        if reader is not None:
            self._set(reader, epoch + 1)

    @staticmethod
    def _reader(trainer) -> Optional[Any]:
        reader = getattr(trainer.data_loader, "reader", None)
        return reader if hasattr(reader, "set_epoch") else None

    @staticmethod
    def _set(reader, epoch: int) -> None:
        reader.set_epoch(epoch)
        logger.info("the training reader draws epoch %d", epoch)
