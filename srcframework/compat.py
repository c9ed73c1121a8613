"""The one place that adapts AllenNLP 2.10.1 to today's torch.

Each adaptation is applied only where the old API is missing, so on an environment that still has
it nothing changes. Current adaptations:

- ``torch.optim.lr_scheduler.ReduceLROnPlateau`` lost its ``verbose`` argument (torch >= 2.7), but
  AllenNLP's ``reduce_on_plateau`` scheduler still passes it. The scheduler keeps accepting
  ``verbose`` in configs and no longer forwards it.
"""
import inspect
import logging

import torch

logger = logging.getLogger(__name__)

APPLIED: list = []


def _patch_reduce_on_plateau() -> None:
    if "verbose" in inspect.signature(torch.optim.lr_scheduler.ReduceLROnPlateau).parameters:
        return
    from allennlp.training.learning_rate_schedulers import pytorch_lr_schedulers as schedulers

    cls = schedulers.ReduceOnPlateauLearningRateScheduler
    parent = schedulers._PyTorchLearningRateSchedulerWithMetricsWrapper

    def __init__(
        self,
        optimizer: torch.optim.Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        verbose: bool = False,
        threshold_mode: str = "rel",
        threshold: float = 1e-4,
        cooldown: int = 0,
        min_lr=0.0,
        eps: float = 1e-8,
    ) -> None:
        lr_scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
            optimizer=optimizer,
            mode=mode,
            factor=factor,
            patience=patience,
            threshold_mode=threshold_mode,
            threshold=threshold,
            cooldown=cooldown,
            min_lr=min_lr,
            eps=eps,
        )
        parent.__init__(self, lr_scheduler)

    cls.__init__ = __init__
    APPLIED.append("reduce_on_plateau: dropped 'verbose'")


def apply() -> list:
    """Apply every needed adaptation once; returns the list of those applied."""
    if not APPLIED:
        _patch_reduce_on_plateau()
        for item in APPLIED:
            logger.debug("srcframework.compat applied %s", item)
    return APPLIED
