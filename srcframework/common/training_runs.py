"""What the serialization folder of an `allennlp train` run says about the run: how many epochs it
finished, whether it ran to its end, and whether a `model.tar.gz` in it is a finished model.

AllenNLP writes `metrics_epoch_N.json` at the end of each epoch (N from 0) and `metrics.json` only
when the training ran to its end. A training stopped after an epoch (Ctrl-C, SIGTERM) also leaves
a `model.tar.gz`, made of its best epoch so far: an archive that looks final but is not. The
recipes' `finished` test in `recipes/common.sh` is the same as `finished` here.
"""
import json
import os
import re
from dataclasses import dataclass
from typing import Optional

ARCHIVE_NAME = "model.tar.gz"
METRICS_NAME = "metrics.json"
CONFIG_NAME = "config.json"
_EPOCH_METRICS = re.compile(r"^metrics_epoch_(\d+)\.json$")
_MODEL_STATE = re.compile(r"^model_state_e(\d+)_b0\.th$")


def _read_json(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            value = json.load(handle)
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def epochs_done(folder: str) -> int:
    """The number of epochs the run in `folder` finished (0 when none, or no such folder)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    done = 0
    for name in names:
        found = _EPOCH_METRICS.match(name)
        if found:
            done = max(done, int(found.group(1)) + 1)
        found = _MODEL_STATE.match(name)
        if found:
            done = max(done, int(found.group(1)))
    return done


def config_difference(now: object, saved: object, key: str = "") -> Optional[str]:
    """The first key where the config the recipe gives now differs from a run's config.json, said
    as `trainer.num_epochs is 2 here, 1 in its config.json`; None when they are the same."""
    if isinstance(now, dict) and isinstance(saved, dict):
        for name in sorted(set(now) | set(saved)):
            inner = f"{key}.{name}" if key else name
            if name not in saved:
                return f"{inner} is new here, not in its config.json"
            if name not in now:
                return f"{inner} is in its config.json, not here"
            found = config_difference(now[name], saved[name], inner)
            if found:
                return found
        return None
    if now != saved:
        return f"{key or 'the config'} is {json.dumps(now)[:60]} here, {json.dumps(saved)[:60]} in its config.json"
    return None


def final_metrics(folder: str) -> dict:
    """The run's `metrics.json` ({} when there is none or it cannot be read)."""
    return _read_json(os.path.join(folder, METRICS_NAME))


def finished(folder: str) -> bool:
    """Whether the training in `folder` ran to its end (`model.tar.gz` and `metrics.json`)."""
    return os.path.isfile(os.path.join(folder, ARCHIVE_NAME)) and os.path.isfile(os.path.join(folder, METRICS_NAME))


def is_training_folder(folder: str) -> bool:
    """Whether `folder` is the serialization folder of an `allennlp train` run (its `config.json`
    and `meta.json`, or epochs)."""
    has = lambda name: os.path.isfile(os.path.join(folder, name))  # noqa: E731
    return has(CONFIG_NAME) and (has("meta.json") or epochs_done(folder) > 0)


@dataclass(frozen=True)
class RunState:
    """Where a training run in `folder` stands."""

    folder: str
    epochs_done: int
    num_epochs: Optional[int]
    best_epoch: Optional[int]  # counting from 1, as the metrics' `best_epoch` + 1
    finished: bool

    @property
    def of_epochs(self) -> str:
        """`3 of 8` (or `3` when the config's number of epochs is unknown)."""
        return f"{self.epochs_done} of {self.num_epochs}" if self.num_epochs else str(self.epochs_done)


def run_state(folder: str) -> RunState:
    """The `RunState` of the training in `folder`."""
    done = epochs_done(folder)
    trainer = _read_json(os.path.join(folder, CONFIG_NAME)).get("trainer")
    num_epochs = trainer.get("num_epochs") if isinstance(trainer, dict) else None
    best = None
    if done:
        best_epoch = _read_json(os.path.join(folder, f"metrics_epoch_{done - 1}.json")).get("best_epoch")
        best = int(best_epoch) + 1 if isinstance(best_epoch, int) else None
    return RunState(folder=folder, epochs_done=done, num_epochs=num_epochs if isinstance(num_epochs, int) else None,
                    best_epoch=best, finished=finished(folder))


def resume_command(folder: str) -> str:
    """A command that resumes the stopped training in `folder` from its saved config."""
    return f"allennlp train {os.path.join(folder, CONFIG_NAME)} -s {folder} --recover"


def stopped_archive_note(archive: str) -> Optional[str]:
    """
    One line saying that `archive` is the `model.tar.gz` of a training that did not run to its end
    (its serialization folder has no `metrics.json`), and how to resume it; None for any other
    archive (a finished one, or one outside a serialization folder).
    """
    path = os.fspath(archive)
    if os.path.basename(path) != ARCHIVE_NAME:
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if not is_training_folder(folder) or os.path.isfile(os.path.join(folder, METRICS_NAME)):
        return None
    state = run_state(folder)
    best = f" (epoch {state.best_epoch})" if state.best_epoch else ""
    return (f"{path} is the archive of a stopped training: it holds the best epoch so far{best} after "
            f"{state.of_epochs} epochs, not a finished model (its folder has no {METRICS_NAME}); "
            f"resume the training with: {resume_command(os.path.dirname(path) or '.')}")
