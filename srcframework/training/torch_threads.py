import logging
import os
from typing import Optional

import torch
from allennlp.common.checks import ConfigurationError
from allennlp.training.callbacks.callback import TrainerCallback

logger = logging.getLogger(__name__)


@TrainerCallback.register("torch_threads")
class TorchThreadsCallback(TrainerCallback):
    """
    Sets how many threads torch's CPU operators use (`torch.set_num_threads`) when the training
    starts; validation within the run uses them too. Torch takes one a core by default. On cores
    shared with other busy processes, each multi-threaded operator waits at its end for a thread
    the scheduler has put aside, and one thread can be several times faster:
    `benchmarks/speecht5_ctc_step.py` measures it (docs/benchmarks.md). An `OMP_NUM_THREADS` set
    in the environment wins over `threads`, so a run on a machine of its own can ask for all its
    cores without editing the config. Nothing else changes: the weights and the archive do not
    depend on it, and prediction and evaluation outside training keep torch's default.

        trainer: { callbacks: [{ type: 'torch_threads', threads: 1 }] }

    # Parameters

    serialization_dir : `str`
        Passed by the trainer.
    threads : `int`
        Threads for torch's CPU operators (at least 1).
    """

    def __init__(self, serialization_dir: str, threads: int) -> None:
        super().__init__(serialization_dir)
        if threads < 1:
            raise ConfigurationError(f"torch_threads: threads must be at least 1, got {threads}")
        self.threads = threads

    def chosen(self) -> int:
        """`OMP_NUM_THREADS` where the environment sets it to a positive number, else `threads`."""
        value: Optional[str] = os.environ.get("OMP_NUM_THREADS")
        if value and value.strip().isdigit() and int(value) > 0:
            return int(value)
        return self.threads

    def on_start(self, trainer, is_primary: bool = True, **kwargs) -> None:
        threads = self.chosen()
        torch.set_num_threads(threads)
        logger.info("torch uses %d thread(s) for this training", threads)
