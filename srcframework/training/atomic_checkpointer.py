"""
AllenNLP's checkpointer, writing each checkpoint file whole or not at all.

AllenNLP's `Checkpointer` writes `training_state_eN_bM.th` and `model_state_eN_bM.th` with
`torch.save` straight under their names: a full disk leaves a truncated file there, which
`--recover` then fails to load. `AtomicCheckpointer` serializes each state in memory first (so the
bytes needed are known), writes it under a temporary name in the same folder and renames it once
it is complete (`common.files.write_bytes_atomic`); the training state is written before the model
state, and a checkpoint counts only when both are there. A full disk is then one `DiskFull` line
naming the folder and the bytes needed, and the last complete checkpoint is the one `--recover`
resumes from.

Name it in a config (`trainer: { checkpointer: { type: 'atomic' } }`), or use the
`declared_checkpoint` trainer callback, which every training config of this project has: it makes
AllenNLP's default checkpointer an atomic one when the training starts (`make_atomic`).
"""
import io
import os
from typing import Set, Tuple

import torch
from allennlp.training.checkpointer import Checkpointer

from srcframework.common.files import write_bytes_atomic


def save_whole(state, path: str) -> None:
    """`torch.save(state, path)`, written under a temporary name and renamed once complete."""
    buffer = io.BytesIO()
    torch.save(state, buffer)
    write_bytes_atomic(path, buffer.getvalue())


@Checkpointer.register("atomic")
class AtomicCheckpointer(Checkpointer):
    """
    AllenNLP's `Checkpointer` (the same parameters and files), each file written whole or not at all.

    # Parameters

    serialization_dir : `str`
    save_completed_epochs : `bool`, optional (default = `True`)
    save_every_num_seconds : `float`, optional (default = `None`)
    save_every_num_batches : `int`, optional (default = `None`)
    keep_most_recent_by_count : `int`, optional (default = `2`)
    keep_most_recent_by_age : `int`, optional (default = `None`)
    """

    def save_checkpoint(self, trainer) -> None:
        if self._serialization_dir is not None:
            state = trainer.get_checkpoint_state()
            if state is not None:
                done = (state.trainer_state["epochs_completed"], state.trainer_state["batches_in_epoch_completed"])
                # the training state first: a checkpoint is found by its model state file
                for payload, path in ((state.trainer_state, self._training_state_path(*done)),
                                      (state.model_state, self._model_state_path(*done))):
                    if not os.path.isfile(path):
                        save_whole(payload, path)
        # AllenNLP's own bookkeeping and the removal of old checkpoints; its files are there, so it writes none
        super().save_checkpoint(trainer)

    def _find_all_checkpoints(self) -> Set[Tuple[int, int]]:
        """The checkpoints whose model and training state files are both there."""
        return {point for point in super()._find_all_checkpoints()
                if os.path.isfile(self._training_state_path(*point))}


def make_atomic(trainer) -> None:
    """Makes `trainer`'s checkpointer an `AtomicCheckpointer` when it is AllenNLP's default one (the
    same settings and state; a checkpointer of another kind is left alone)."""
    checkpointer = getattr(trainer, "_checkpointer", None)
    if type(checkpointer) is Checkpointer:
        checkpointer.__class__ = AtomicCheckpointer
