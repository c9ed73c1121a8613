"""Where each step of a recipe stands: finished, stale, to resume or to run, and why.

A step's **fingerprint** is the sha256 of what it does and what it reads: a training's config as
`allennlp train` would save it (rendered with the recipe's variables and the overrides), a
command's arguments and variables, a job's params, the files it names that exist (the jobs' own
`named_files` fingerprints), and the fingerprint of what each of its needs made.

When a step ends, the runner writes a **stamp** into the recipe's state folder
(`RUNS/.recipes/NAME/STEP.json`): its fingerprint and the fingerprints of its outputs. A step is

- **finished** when its outputs are there, made here, with the fingerprint it has now: a training
  has `metrics.json` (`srcframework.common.training_runs.finished`: a stopped one has an archive
  of its best epoch but no `metrics.json`), another step its stamp and its outputs as stamped. A
  committed file (a recipe's results.json) is not made by this clone: without a stamp its step is
  to run. What lies in the runs folder (never committed) was made here: outputs there without a
  stamp (made before the runner) count as finished, and so does a finished training without a
  stamp whose `config.json` is the config the recipe gives now; the next run stamps them;
- **stale** when its outputs are there but its fingerprint has changed (its config, a file it
  reads, or the output of a need, which was made again);
- **to resume** when a training stopped after an epoch (`allennlp train --recover`);
- **to run** otherwise; a training whose card's archive is released in the clone with the
  training's config says it will be put back from it (`srcframework.store.from_release`).
"""
import json
import os
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from allennlp.common import Params

from srcframework.common.errors import InputError, InputFileNotFound
from srcframework.common.files import named_files, path_fingerprint, read_json, text_sha256
from srcframework.common.training_runs import (CONFIG_NAME, METRICS_NAME, config_difference, final_metrics, finished,
                                               run_state)
from srcframework.recipes.recipe import Recipe, Step

FINISHED, STALE, RESUME, TO_RUN = "finished", "stale", "resume", "to run"


def short(fingerprint: str) -> str:
    return fingerprint[:12]


def state_folder(recipe: Recipe, runs: str) -> str:
    return os.path.join(runs, ".recipes", recipe.name)


def stamp_path(recipe: Recipe, runs: str, step: Step) -> str:
    return os.path.join(state_folder(recipe, runs), f"{step.name}.json")


def running_note(recipe: Recipe, runs: str, step: Step) -> str:
    """`  (running: PROCESS)` where another process runs `step` now (it holds the step's lock), else ''."""
    from srcframework.common.journal import lock_holder

    holder = lock_holder(stamp_path(recipe, runs, step))
    return f"  (running: {holder})" if holder else ""


def read_stamp(path: str) -> Optional[dict]:
    if not os.path.isfile(path):
        return None
    try:
        stamp = read_json(path)
    except ValueError:
        return None
    return stamp if isinstance(stamp, dict) and isinstance(stamp.get("fingerprint"), str) else None


def step_environment(recipe: Recipe, step: Step) -> Dict[str, str]:
    """The variables a step runs with: the environment, the recipe's and the step's own."""
    from srcframework import config_defaults

    config_defaults.export()
    return {**os.environ, **recipe.env, **step.env}


def training_config(recipe: Recipe, step: Step, overrides: str = "") -> dict:
    """The config of a training step as `allennlp train` saves it into config.json."""
    if not os.path.isfile(step.config):
        raise InputFileNotFound(f"recipe {recipe.name}, training {step.name}: no config {step.config}")
    try:
        params = Params.from_file(step.config, params_overrides=overrides or "", ext_vars=step_environment(recipe, step))
    except RuntimeError as err:
        raise InputError(f"{step.config}: cannot evaluate the config: {str(err).splitlines()[0]}") from None
    return params.as_dict(quiet=True)


def _outside(path: str, outputs) -> bool:
    path = os.path.abspath(path)
    return not any(path == os.path.abspath(out) or path.startswith(os.path.abspath(out) + os.sep) for out in outputs)


def _read(path: str, outputs) -> bool:
    """Whether a path a step names is something it reads: not one of its outputs, not inside one,
    and not a folder that holds one (where the step writes: a synthesis's or a transcription's
    folder, which later steps write into too; what made it is in the step's needs)."""
    folder = os.path.abspath(path) + os.sep
    return _outside(path, outputs) and not any(os.path.abspath(out).startswith(folder) for out in outputs)


def output_fingerprints(step: Step) -> Dict[str, str]:
    """What a finished step made: a training's metrics.json, another step's outputs."""
    if step.is_training:
        return {os.path.join(step.folder, METRICS_NAME): path_fingerprint(os.path.join(step.folder, METRICS_NAME))}
    return {path: path_fingerprint(path) for path in step.outputs if os.path.exists(path)}


NOT_MADE = "not made"


def made_fingerprint(stamp: Optional[dict]) -> str:
    """The fingerprint of what a stamped step made (its own fingerprint and its outputs')."""
    if stamp is None:
        return NOT_MADE
    return text_sha256(json.dumps([stamp["fingerprint"], stamp.get("outputs", {})], sort_keys=True))


NEEDS_STAMPED_AFTER = "a need made before it was stamped after it"


def _newest_output(step: Step) -> float:
    """The latest modification time of what `step` made (a training's metrics.json; the files of
    another step's outputs, those in its output folders included)."""
    paths = [os.path.join(step.folder, METRICS_NAME)] if step.is_training else list(step.outputs)
    def changed(path: str) -> float:
        try:
            return os.path.getmtime(path)
        except FileNotFoundError:  # removed while this looked
            return 0.0

    newest = 0.0
    for path in paths:
        if os.path.isdir(path):
            for folder, _, names in os.walk(path):
                newest = max([newest, changed(folder), *(changed(os.path.join(folder, name)) for name in names)])
        elif os.path.exists(path):
            newest = max(newest, changed(path))
    return newest


@dataclass(frozen=True)
class StepState:
    """Where one step stands: `status` (finished, stale, resume, to run), why, its fingerprint."""

    step: Step
    status: str
    why: str
    fingerprint: str
    epochs_done: int = 0

    def line(self) -> str:
        if self.status == FINISHED:
            return f"skipped: finished, fingerprint {short(self.fingerprint)}" + (f" ({self.why})" if self.why else "")
        if self.status == RESUME:
            return f"resumed: {self.why}"
        return f"to run: {self.why}"


class StepStates:
    """The state of each step of a recipe, with fingerprints worked out once."""

    def __init__(self, recipe: Recipe, runs: str = "runs", overrides: str = "", releases: bool = True,
                 snapshots: Optional[str] = None) -> None:
        self.recipe = recipe
        self.snapshots = snapshots  # where a training's snapshot is looked for (default: models/snapshots)
        self.runs = runs
        self.overrides = overrides
        self.releases = releases  # a training not started is put back from its card's released archive
        self._fingerprints: Dict[str, str] = {}
        self._made: Dict[str, str] = {}
        self._configs: Dict[str, dict] = {}

    def stamp(self, step: Step) -> Optional[dict]:
        return read_stamp(stamp_path(self.recipe, self.runs, step))

    def config(self, step: Step) -> dict:
        if step.name not in self._configs:
            self._configs[step.name] = training_config(self.recipe, step, self.overrides)
        return self._configs[step.name]

    def made(self, step: Step) -> str:
        """What `step` made, as the fingerprints of the steps that need it see it: its stamp's; for a
        step found finished without a stamp (made before the runner), what its stamp will say once
        the runner writes it, so that writing it makes no step after it stale; else `NOT_MADE`."""
        if step.name not in self._made:
            stamp = self.stamp(step)
            if stamp is not None:
                made = made_fingerprint(stamp)
            else:
                state = self.state(step)
                made = NOT_MADE if state.status != FINISHED else made_fingerprint(
                    {"fingerprint": state.fingerprint, "outputs": output_fingerprints(step)})
            self._made[step.name] = made
        return self._made[step.name]

    def needs_made(self, step: Step) -> Dict[str, str]:
        return {need: self.made(self.recipe.step(need)) for need in step.needs}

    def fingerprint(self, step: Step) -> str:
        if step.name not in self._fingerprints:
            self._fingerprints[step.name] = self.fingerprint_with(step, self.needs_made(step))
        return self._fingerprints[step.name]

    def fingerprint_with(self, step: Step, needs: Dict[str, str]) -> str:
        if step.is_training:
            payload: dict = {"config": self.config(step)}
        else:
            payload = {"command": list(step.command), "job": step.job, "env": step.env}
            named = named_files([*step.command, step.job, *step.inputs])
            # the pages a report job writes into are outputs too: an edit of their prose is not new input
            written = [*step.outputs, *((step.job or {}).get("pages") or [])]
            payload["files"] = {path: value for path, value in named.items() if _read(path, written)}
        payload["needs"] = needs
        return text_sha256(json.dumps(payload, sort_keys=True))

    def _stamped_before_its_needs(self, step: Step, stamp: dict) -> bool:
        """Whether the stamp holds what `step` is now but for needs it recorded as `NOT_MADE` that
        were there, finished without a stamp, when it ran: stamps written before `made` recorded such
        a need so, and the runner stamped the need later. Each such need's outputs must be older than
        this stamp (not made again since). The stamp is kept as it is (the steps after it recorded
        what it made)."""
        recorded = stamp.get("needs", {})
        found = [need for need in step.needs if recorded.get(need) == NOT_MADE]
        if not found or any(self.made(self.recipe.step(need)) == NOT_MADE for need in found):
            return False
        stamped_at = os.path.getmtime(stamp_path(self.recipe, self.runs, step))
        if any(_newest_output(self.recipe.step(need)) > stamped_at for need in found):
            return False
        needs = {need: (NOT_MADE if need in found else made) for need, made in self.needs_made(step).items()}
        return self.fingerprint_with(step, needs) == stamp["fingerprint"]

    def forget(self, step: Step) -> None:
        """Work the fingerprints out anew (`step` ran, so its own and those after it change)."""
        self._fingerprints.clear()
        self._made.clear()

    def state(self, step: Step) -> StepState:
        fingerprint = self.fingerprint(step)
        stamp = self.stamp(step)
        if step.is_training:
            return self._training_state(step, fingerprint, stamp)
        missing = [path for path in step.outputs if not os.path.exists(path)]
        if missing:
            return StepState(step, TO_RUN, f"{missing[0]} is missing", fingerprint)
        if stamp is None:
            elsewhere = [path for path in step.outputs if _outside(path, [self.runs])]
            if elsewhere:
                return StepState(step, TO_RUN, f"{elsewhere[0]} was not made here", fingerprint)
            return StepState(step, FINISHED, "made before its stamp", fingerprint)
        if stamp.get("outputs") != output_fingerprints(step):
            return StepState(step, STALE, "its outputs changed since it made them", fingerprint)
        if stamp["fingerprint"] != fingerprint:
            if self._stamped_before_its_needs(step, stamp):
                return StepState(step, FINISHED, NEEDS_STAMPED_AFTER, fingerprint)
            return StepState(step, STALE, self._what_changed(step, stamp), fingerprint)
        return StepState(step, FINISHED, "", fingerprint)

    def _what_changed(self, step: Step, stamp: dict) -> str:
        made = self.needs_made(step)
        changed = [need for need in step.needs if made[need] != stamp.get("needs", {}).get(need)]
        if changed:
            return f"stale: {changed[0]} was made again since"
        return "stale: its config, command or input files changed"

    def _training_state(self, step: Step, fingerprint: str, stamp: Optional[dict]) -> StepState:
        run = run_state(step.folder)
        if finished(step.folder) and not self.releases and "restored_from" in final_metrics(step.folder):
            return StepState(step, STALE, "stale: put back from its released archive, and --train-released trains it",
                             fingerprint, run.epochs_done)
        if finished(step.folder):
            saved = _read_config(step.folder)
            if stamp is not None:
                if stamp["fingerprint"] == fingerprint:
                    return StepState(step, FINISHED, "", fingerprint, run.epochs_done)
                if self._stamped_before_its_needs(step, stamp):
                    return StepState(step, FINISHED, NEEDS_STAMPED_AFTER, fingerprint, run.epochs_done)
                difference = config_difference(self.config(step), saved)
                why = f"stale: {difference}" if difference else self._what_changed(step, stamp)
                return StepState(step, STALE, why, fingerprint, run.epochs_done)
            difference = config_difference(self.config(step), saved)
            if difference is None:  # trained before the runner, or by another recipe that declares it too
                return StepState(step, FINISHED, "trained before its stamp", fingerprint, run.epochs_done)
            return StepState(step, STALE, f"stale: {difference}", fingerprint, run.epochs_done)
        if run.epochs_done and os.path.isfile(os.path.join(step.folder, CONFIG_NAME)):
            return StepState(step, RESUME, f"epoch {run.epochs_done} of {run.num_epochs or '?'}", fingerprint, run.epochs_done)
        archive, error = self.release(step)
        if error is not None:  # the release does not match its card: the run stops on it
            return StepState(step, TO_RUN, f"the run will stop: {error}", fingerprint)
        if archive is not None:
            return StepState(step, TO_RUN, f"put back from its released archive {os.path.relpath(archive)}", fingerprint)
        return StepState(step, TO_RUN, _from_snapshot(step.folder, self.snapshots), fingerprint)

    def release(self, step: Step) -> Tuple[Optional[str], Optional[InputError]]:
        """The released archive the recipe would put `step` back from (its card's, with this
        training's config; None without one, or with `releases` off), or the error that keeps a
        release from being used (its sha256 does not match its card)."""
        if not self.releases or not step.is_training or not step.card:
            return None, None
        from srcframework.store.from_release import released_archive

        config = self.config(step)  # a config that cannot be rendered is its own error, not the release's
        try:
            return released_archive(step.card, config), None
        except InputError as error:
            return None, error


def _from_snapshot(folder: str, snapshots: Optional[str] = None) -> str:
    """Why a training not started here will run: from the repository's snapshot of its folder
    (finished, or under way), or from its first epoch."""
    from srcframework.store import snapshot

    record = snapshot.find(folder, snapshots)
    if record is None or record.get("kind") != "training":
        return "not started"
    if record.get("finished"):
        return f"not started here: put back from its snapshot in models/snapshots (finished, {record['epoch']} epochs)"
    return f"not started here: goes on from its snapshot in models/snapshots (after {record['epoch']} epochs)"


def _read_config(folder: str) -> Optional[dict]:
    try:
        with open(os.path.join(folder, CONFIG_NAME), encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def stamp_step(states: StepStates, step: Step) -> dict:
    """Writes the stamp of a step that has just finished; returns it."""
    from srcframework.common.files import write_json_atomic

    states.forget(step)
    needs = states.needs_made(step)
    stamp = {
        "step": step.name,
        "fingerprint": states.fingerprint_with(step, needs),
        "needs": needs,
        "outputs": output_fingerprints(step),
    }
    path = stamp_path(states.recipe, states.runs, step)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_json_atomic(path, stamp, indent=1)
    states.forget(step)
    return stamp
