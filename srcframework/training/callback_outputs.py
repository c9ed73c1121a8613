"""What a training's callbacks write at its end, written again from its archive.

A training folder that comes back without having been trained here (from a released archive, or
from the snapshot of a finished training) lacks what its trainer callbacks wrote when it ended,
such as `save_speecht5_ctc`'s encoder folder. A callback class that can make that again from the
trained model has `outputs_from_archive(model, serialization_dir, **its config)`;
`write_callback_outputs` calls it for each such callback the folder's `config.json` names.
"""
import json
import os

from srcframework.common.training_runs import ARCHIVE_NAME


def write_callback_outputs(folder: str) -> None:
    """Calls `outputs_from_archive` of each trainer callback in `folder`'s `config.json` that has
    it, with the model of `folder/model.tar.gz` (loaded once, only where one is needed)."""
    from allennlp.models.archival import load_archive
    from allennlp.training.callbacks.callback import TrainerCallback

    with open(os.path.join(folder, "config.json"), encoding="utf-8") as handle:
        callbacks = (json.load(handle).get("trainer") or {}).get("callbacks") or []
    model = None
    for config in callbacks:
        config = dict(config)
        name = config.pop("type", None)
        if not name or name not in TrainerCallback.list_available():
            continue
        callback = TrainerCallback.by_name(name)
        if not hasattr(callback, "outputs_from_archive"):
            continue
        if model is None:
            model = load_archive(os.path.join(folder, ARCHIVE_NAME)).model
        callback.outputs_from_archive(model, folder, **config)
