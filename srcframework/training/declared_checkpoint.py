import logging
import os
import shutil
from typing import Any, Dict, Optional

import torch
from allennlp.common.checks import ConfigurationError
from allennlp.training.callbacks.callback import TrainerCallback

from srcframework.common.files import write_json_atomic
from srcframework.training.atomic_checkpointer import make_atomic

logger = logging.getLogger(__name__)

RECORD_NAME = "training_record.json"
RULES = ("last", "best")


@TrainerCallback.register("declared_checkpoint")
class DeclaredCheckpointCallback(TrainerCallback):
    """
    Declares which weights a training run's `model.tar.gz` holds, and records what the run did.

    With `epoch: "last"`, the archive holds the weights of the last epoch, whatever the validation
    metric says (AllenNLP's own rule keeps the epoch best on the validation data; `"best"` keeps
    that rule). Either way the callback writes `training_record.json` in the serialization folder:
    the rule, the epoch whose weights were archived (counting from 1), the training instances and
    optimizer updates of every epoch and in all, the vocabulary's size per namespace, the seeds,
    the validation metric of every epoch, and the machine it ran on (torch's version, the CPU and
    the vector instructions torch's kernels used, the torch threads and the CPU of every epoch, so a
    training resumed on another machine says which epochs ran where): a training
    under a seed repeats to the last digit on the same machine with the same threads, but another
    CPU or thread count changes the order of floating-point sums, and at CPU scale that can move
    F1 by points. It also makes AllenNLP's default checkpointer write each checkpoint file whole
    or not at all (`atomic_checkpointer`). Add `include_in_archive: ['training_record.json']`
    to the config, and the archive carries it (studies read it from there). The counts survive
    `--recover` (they are kept in the trainer's checkpoints).

        trainer: { callbacks: [{ type: 'declared_checkpoint', epoch: 'last' }] }

    # Parameters

    serialization_dir : `str`
        Passed by the trainer.
    epoch : `str`, optional (default = `"last"`)
        `"last"` or `"best"` (best on the validation data, which must never be a test set).
    """

    def __init__(self, serialization_dir: str, epoch: str = "last") -> None:
        super().__init__(serialization_dir)
        if epoch not in RULES:
            raise ConfigurationError(f"declared_checkpoint: epoch must be one of {', '.join(RULES)}, not {epoch!r}")
        self.epoch = epoch
        self.instances: Dict[str, int] = {}
        self.updates: Dict[str, int] = {}
        self.validation: Dict[str, Optional[float]] = {}
        self.threads: Dict[str, list] = {}
        self.cpus: Dict[str, Optional[str]] = {}

    def on_start(self, trainer, is_primary: bool = True, **kwargs) -> None:
        make_atomic(trainer)  # each checkpoint file whole or not at all (a full disk keeps the last good one)

    def on_batch(self, trainer, batch_inputs, batch_outputs, batch_metrics, epoch: int, batch_number: int,
                 is_training: bool, is_primary: bool = True, **kwargs) -> None:
        if not is_training:
            return
        key = str(epoch + 1)
        threads = torch.get_num_threads()
        if threads not in self.threads.setdefault(key, []):
            self.threads[key].append(threads)
        if key not in self.cpus:  # a training resumed on another machine ran its epochs on two CPUs
            self.cpus[key] = machine()["cpu"]
        self.updates[key] = self.updates.get(key, 0) + 1
        self.instances[key] = self.instances.get(key, 0) + sum(_batch_size(batch) for batch in batch_inputs)

    def on_epoch(self, trainer, metrics: Dict[str, Any], epoch: int, is_primary: bool = True, **kwargs) -> None:
        names = [name for _, name in trainer._metric_tracker.tracked_metrics]
        self.validation[str(epoch + 1)] = metrics.get("validation_" + names[0]) if names else None

    def state_dict(self) -> Dict[str, Any]:
        return {"instances": dict(self.instances), "updates": dict(self.updates), "validation": dict(self.validation),
                "threads": {key: list(value) for key, value in self.threads.items()}, "cpus": dict(self.cpus)}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        self.instances = dict(state_dict.get("instances", {}))
        self.updates = dict(state_dict.get("updates", {}))
        self.validation = dict(state_dict.get("validation", {}))
        self.threads = {key: list(value) for key, value in state_dict.get("threads", {}).items()}
        self.cpus = dict(state_dict.get("cpus", {}))

    def on_end(self, trainer, metrics: Optional[Dict[str, Any]] = None, epoch: Optional[int] = None,
               is_primary: bool = True, **kwargs) -> None:
        if metrics is None or not is_primary:
            return  # a failed run: nothing is declared
        done = trainer._epochs_completed
        if self.epoch == "last":
            weights = os.path.join(self.serialization_dir, f"model_state_e{done}_b0.th")
            if not os.path.isfile(weights):
                raise ConfigurationError(
                    f"declared_checkpoint: no checkpoint of the last epoch ({weights}); keep the trainer's checkpointer"
                )
            best = os.path.join(self.serialization_dir, "best.th")
            shutil.copyfile(weights, best + ".tmp")
            os.replace(best + ".tmp", best)
            trainer.model.load_state_dict(torch.load(best, map_location="cpu"))
            archived = done
        else:
            archived = int(metrics.get("best_epoch", done - 1)) + 1
        record = {
            "checkpoint": self.epoch,
            "epoch": archived,
            "epochs": done,
            "instances_per_epoch": self.instances,
            "updates_per_epoch": self.updates,
            "instances": sum(self.instances.values()),
            "updates": sum(self.updates.values()),
            "validation_metric": [name for _, name in trainer._metric_tracker.tracked_metrics],
            "validation_per_epoch": self.validation,
            "vocabulary": {ns: trainer.model.vocab.get_vocab_size(ns) for ns in sorted(trainer.model.vocab._token_to_index)},
            "machine": dict(machine(), threads_per_epoch=self.threads, cpu_per_epoch=self.cpus),
        }
        write_json_atomic(os.path.join(self.serialization_dir, RECORD_NAME), record)
        metrics["declared_checkpoint"] = self.epoch
        metrics["declared_epoch"] = archived
        logger.info("model.tar.gz holds the weights of epoch %d (declared: %s)", archived, self.epoch)


def machine() -> Dict[str, Any]:
    """What decides a training's floating-point results besides its config and seeds: torch's
    version, the CPU's model name and the vector instructions torch's kernels dispatch to."""
    cpu = None
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), None)
    except OSError:
        pass
    capability = torch.backends.cpu.get_cpu_capability() if hasattr(torch.backends, "cpu") else None
    return {"torch": torch.__version__, "cpu": cpu, "cpu_capability": capability}


def _batch_size(batch: Dict[str, Any]) -> int:
    metadata = batch.get("metadata")
    if isinstance(metadata, list):
        return len(metadata)
    for value in batch.values():
        if isinstance(value, torch.Tensor):
            return int(value.shape[0])
        if isinstance(value, dict):
            return _batch_size(value)
    return 0
