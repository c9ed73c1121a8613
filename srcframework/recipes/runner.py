"""Running a recipe's steps: each one skipped when finished, resumed when stopped, run otherwise.

`plan` says what a run would do and why, without doing it (`allennlp recipe run --dry-run`);
`run_recipe` does it: a training by `allennlp train` in this process (`--recover` from its last
epoch; before it starts, the repository's snapshot of its folder is put back, `allennlp snapshot
restore`), with the overrides `-o` given to every training, then its archive installed in the
models folder under its card id; a training not started here whose card's archive is released in
the clone with the training's config is put back from that archive instead (`srcframework.store.from_release`); a command in a process of its own with this installation's
`allennlp` and `python`; a registered job in this process. Each step that ends is stamped with its
fingerprint (`srcframework.recipes.state`), so the next run skips it until what it reads changes;
a stale training's folder is kept as `FOLDER.stale-N` before the training starts again.
"""
import contextlib
import copy
import datetime
import filecmp
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional

from allennlp.common import Params

from srcframework.common.errors import InputError
from srcframework.common.training_runs import final_metrics, finished
from srcframework.recipes.jobs import RecipeJob
from srcframework.recipes.recipe import Recipe, Step
from srcframework.recipes.state import (FINISHED, RESUME, STALE, TO_RUN, StepState, StepStates, running_note, stamp_path,
                                        stamp_step, step_environment)
from srcframework.store.from_release import restore_from_release


def say(text: str) -> None:
    print(f"{datetime.datetime.now():%Y-%m-%d %H:%M:%S} {text}", flush=True)


@dataclass(frozen=True)
class Planned:
    """A step of a run and what the run does with it."""

    state: StepState
    after: Optional[str] = None  # a need that runs first in this run, so this step runs after it

    @property
    def runs(self) -> bool:
        return self.after is not None or self.state.status != FINISHED

    def line(self) -> str:
        if self.after is not None and self.state.status != RESUME:
            return f"to run: after {self.after}, which runs first"
        return self.state.line()


def selected(recipe: Recipe, names: List[str], until: Optional[str] = None) -> List[str]:
    picked = recipe.select(names)
    return recipe.until(picked, until, explicit=bool(names)) if until else picked


def plan(recipe: Recipe, names: List[str], states: StepStates, until: Optional[str] = None) -> List[Planned]:
    """What `run_recipe` does with each step it picks, in order, leaving out the trainings that only
    trainings put back from their released archives need, and those never here that only finished
    trainings need (`not_needed`), unless named (a group's steps are not named one by one); a need that is not picked
    and not finished is an `InputError` that says which step to run first (none for a training put
    back from its release, which reads no other step)."""
    picked = selected(recipe, names, until)
    named = [name for name in names if name not in recipe.groups]  # a group runs what its steps need, no more
    wanted = set(recipe.select(named)) if named else set()
    if until:
        wanted |= set(recipe.select([until]))
    skipped = not_needed(recipe, picked, states, wanted)
    picked = [name for name in picked if name not in skipped]
    planned: Dict[str, Planned] = {}
    for name in picked:
        step = recipe.step(name)
        if put_back_from_release(states, step):
            planned[name] = Planned(states.state(step))
            continue
        for need in step.needs:
            if _reads_no_more(states, step, recipe.step(need)):
                continue
            if need not in picked and states.state(recipe.step(need)).status not in (FINISHED, STALE):
                raise InputError(f"recipe {recipe.name}: {name} needs {need}, which has not finished; run "
                                 f"`allennlp recipe run {recipe.name} {need}` first (or name both)")
        after = next((need for need in step.needs if need in planned and planned[need].runs), None)
        planned[name] = Planned(states.state(step), after)
    return list(planned.values())


def put_back_from_release(states: StepStates, step: Step) -> bool:
    """Whether a training comes from its card's released archive rather than from training: the run
    puts it back, or has put it back."""
    if not step.is_training:
        return False
    status = states.state(step).status
    if status == FINISHED:
        return states.releases and "restored_from" in final_metrics(step.folder)
    return status == TO_RUN and states.release(step)[0] is not None


def _training_snapshot(states: StepStates, step: Step) -> Optional[dict]:
    """The record of the repository's snapshot of a training's folder, or None."""
    from srcframework.store import snapshot

    record = snapshot.find(step.folder, states.snapshots)
    return record if record and record.get("kind") == "training" else None


def _reads_no_more(states: StepStates, step: Step, need: Step) -> bool:
    """Whether training `step` reads its need `need` no more, and so is no reason to run it: `step`
    is found finished, or is to be put back finished from its snapshot (a second stage that finished
    on another machine) that does not read `need`'s folder to be put back (`snapshot.reads_folder`),
    and `need` has nothing here to go on from (not started, no snapshot, no released archive)."""
    from srcframework.store import snapshot

    if not (step.is_training and need.is_training) or states.state(need).status != TO_RUN:
        return False
    status = states.state(step).status
    if status == TO_RUN:
        record = _training_snapshot(states, step) or {}
        # a snapshot whose left-out tensors are built from the need's files reads it to be put back
        done = record.get("finished") and not snapshot.reads_folder(record, need.folder, states.snapshots)
    else:
        done = status == FINISHED
    return bool(done) and states.release(need)[0] is None and _training_snapshot(states, need) is None


def not_needed(recipe: Recipe, picked: List[str], states: StepStates, wanted=frozenset()) -> Dict[str, str]:
    """The trainings of `picked` that no step needs but through trainings put back
    from their released archives (a first stage whose second stage is released), or through
    finished trainings (found here, or in a finished snapshot) when they themselves are absent
    (not started, no snapshot, no release): name -> the training that needs it. The steps `wanted` (named) and those nothing picked needs are
    where the needs are followed from; steps other than trainings are always kept, as a training
    after a released one may read their outputs."""
    chosen = set(picked)
    needed_by = {name: [other for other in picked if name in recipe.step(other).needs] for name in picked}
    roots = [name for name in picked if name in wanted or not needed_by[name]]
    reached, waiting = set(), list(roots)
    while waiting:
        name = waiting.pop()
        if name in reached:
            continue
        reached.add(name)
        step = recipe.step(name)
        if put_back_from_release(states, step):
            continue
        waiting.extend(need for need in step.needs if need in chosen and not _reads_no_more(states, step, recipe.step(need)))
    # a step other than a training is kept, and so is all it needs
    kept = [name for name in picked if name not in reached and not recipe.step(name).is_training]
    reached |= set(kept) | (recipe.needs_of(kept) & chosen)
    skipped: Dict[str, str] = {}
    for name in reversed(picked):
        if name in reached:
            continue
        users = needed_by[name]  # trainings, each one put back or left out itself (then seen before)
        skipped[name] = next((user for user in users if user in reached), None) or skipped[users[0]]
    return skipped


def describe(planned: List[Planned], note=lambda step: "") -> List[str]:
    """One line a planned step, with `note(step)` after it (`running_note`: a step running elsewhere
    would stop this run)."""
    width = max((len(item.state.step.name) for item in planned), default=0)
    return [f"{item.state.step.name:<{width}}  {item.line()}{note(item.state.step)}" for item in planned]


@contextlib.contextmanager
def _environment(variables: Dict[str, str], threads: Optional[int]) -> Iterator[None]:
    import torch

    saved, saved_threads = dict(os.environ), torch.get_num_threads()
    os.environ.update(variables)
    if threads:
        os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = str(threads)
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
        torch.set_num_threads(saved_threads)


@contextlib.contextmanager
def _step_lock(recipe: Recipe, runs: str, step: Step) -> Iterator[None]:
    """Holds the lock of a step while it runs, so that a second run of the same step stops at once."""
    from srcframework.common.journal import JournalBusy, JournalLock, lock_holder

    path = stamp_path(recipe, runs, step)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        lock = JournalLock(path).__enter__()
    except JournalBusy:
        raise InputError(f"recipe {recipe.name}: {step.name} is running in {lock_holder(path) or 'another process'}; "
                         "wait for it to end") from None
    try:
        yield
    finally:
        lock.__exit__(None, None, None)


def restore_snapshot(path: str, snapshots: Optional[str] = None) -> None:
    """Puts back the snapshot of a training folder or job output (from `snapshots`, default the
    repository's models/snapshots), where there is one."""
    from srcframework.store import snapshot

    record = snapshot.restore(path, folder=snapshots)
    if record is not None and record.get("restored"):
        say(f"restored the snapshot {record['name']} into {path}")


def install_card(step: Step) -> None:
    """Copies a finished training's archive into the models folder under its card id, once."""
    from srcframework.pretrained import install, installed_path

    if not step.card:
        return
    if os.path.isfile(installed_path(step.card)) and filecmp.cmp(step.archive, installed_path(step.card), shallow=False):
        say(f"skip {step.card}: installed")
        return
    say(f"installed {step.card}: {install(step.card, step.archive)}")


def _inside(path: str, folder: str) -> bool:
    return os.path.commonpath([os.path.abspath(path), os.path.abspath(folder)]) == os.path.abspath(folder)


def _move_back(kept: str, folder: str) -> None:
    """Moves every file under `kept` to the same place under `folder` (where none is there yet)
    and removes `kept`."""
    for directory, _, names in os.walk(kept):
        for name in names:
            source = os.path.join(directory, name)
            target = os.path.join(folder, os.path.relpath(source, kept))
            if not os.path.exists(target):
                os.makedirs(os.path.dirname(target), exist_ok=True)
                os.replace(source, target)
    shutil.rmtree(kept)


def _put_kept_back(folder: str) -> None:
    """Moves what `_others_kept` set aside in `FOLDER.outputs-kept` back into `folder`, if anything."""
    kept = folder + ".outputs-kept"
    if os.path.isdir(kept):
        os.makedirs(folder, exist_ok=True)
        _move_back(kept, folder)


@contextlib.contextmanager
def _others_kept(recipe: Recipe, step: Step):
    """Other steps' outputs that lie in a training's folder (the quickstart's noisy sets in
    runs/quickstart/sets) are moved to `FOLDER.outputs-kept` beside it while the training is put
    back, set aside or trained with `-f` (each of which replaces the folder), and back into the
    folder afterwards, even after an error. After a run stopped in between, `run_recipe` moves
    them back before anything else."""
    folder, kept = step.folder, step.folder + ".outputs-kept"
    inside = [path for other in recipe.steps if other.name != step.name and not other.is_training
              for path in other.outputs if _inside(path, folder) and os.path.exists(path)]
    for path in inside:
        target = os.path.join(kept, os.path.relpath(path, folder))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.replace(path, target)
    try:
        yield
    finally:
        _put_kept_back(folder)


def _train(recipe: Recipe, step: Step, states: StepStates, state: StepState, threads: Optional[int],
           snapshots: Optional[str]) -> None:
    with _others_kept(recipe, step):
        _train_here(recipe, step, states, state, threads, snapshots)


def _train_here(recipe: Recipe, step: Step, states: StepStates, state: StepState, threads: Optional[int],
                snapshots: Optional[str]) -> None:
    from allennlp.commands.train import train_model

    if state.status == TO_RUN:
        archive, error = states.release(step)
        if error is not None:  # a release that does not match its card stops the run
            raise error
        if archive is not None:
            restore_from_release(step.folder, archive, step.card)
            say(f"{step.name}: put back from its released archive {os.path.relpath(archive)} (same config); not trained again")
            return
    if state.status in (TO_RUN, RESUME):
        restore_snapshot(step.folder, snapshots)
        states.forget(step)
        state = states.state(step)
        if state.status == FINISHED:  # the snapshot of a finished training, for the steps after it
            say(f"{step.name}: finished, put back from its snapshot")
            return
    recover = state.status == RESUME
    if state.status == STALE:
        kept = _set_aside(step.folder)
        say(f"{step.name}: the stale run is kept as {kept}")
    os.makedirs(os.path.dirname(os.path.abspath(step.folder)), exist_ok=True)
    mode = f"--recover from epoch {state.epochs_done}" if recover else "-f"
    say(f"train {step.config} -> {step.folder} ({mode})")
    if recover and state.epochs_done:
        say(f"{step.name}: AllenNLP first reads the data of the {state.epochs_done} epoch(s) done again, without "
            "training, to keep the batches' order (its log counts those epochs from 0)")
    with _environment({**recipe.env, **step.env}, threads or step.threads):
        train_model(Params(copy.deepcopy(states.config(step))), step.folder, recover=recover, force=not recover)
    if not finished(step.folder):
        raise InputError(f"recipe {recipe.name}: {step.name} stopped before its end; run it again to resume it")
    say(f"done {step.folder}")


def _set_aside(folder: str) -> str:
    """Renames a stale training's folder to `FOLDER.stale-N` (the first N free), so that training
    it again deletes nothing; returns the new name."""
    number = 1
    while os.path.exists(f"{folder}.stale-{number}"):
        number += 1
    os.rename(folder, f"{folder}.stale-{number}")
    return f"{folder}.stale-{number}"


def _command(step: Step) -> List[str]:
    program, *arguments = step.command
    if program == "allennlp":
        return [sys.executable, "-m", "allennlp", *arguments]
    if program == "python":
        return [sys.executable, *arguments]
    return list(step.command)


def _run_other(recipe: Recipe, step: Step, threads: Optional[int], snapshots: Optional[str]) -> None:
    for output in step.outputs:
        folder = os.path.dirname(output)
        if folder:
            os.makedirs(folder, exist_ok=True)
        if not os.path.exists(output):
            restore_snapshot(output, snapshots)  # a journaled job's journals, carried from another machine
    if step.job is not None:
        say(f"{step.name}: {step.job['type']} job")
        job = RecipeJob.from_params(Params(copy.deepcopy(step.job)))
        with _environment({**recipe.env, **step.env}, threads):
            job.run()
    else:
        say(f"{step.name}: {' '.join(step.command)}")
        environment = step_environment(recipe, step)
        if threads:
            environment.update(OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
        done = subprocess.run(_command(step), env=environment)
        if done.returncode != 0:
            raise InputError(f"recipe {recipe.name}: step {step.name} failed (exit status {done.returncode}): {' '.join(step.command)}")
    missing = [path for path in step.outputs if not os.path.exists(path)]
    if missing:
        raise InputError(f"recipe {recipe.name}: step {step.name} ended without making {missing[0]}")


def run_recipe(recipe: Recipe, names: List[str], runs: str = "runs", overrides: str = "", until: Optional[str] = None,
               threads: Optional[int] = None, dry_run: bool = False, snapshots: Optional[str] = None,
               train_released: bool = False) -> List[Planned]:
    """
    Runs the steps `names` pick (every step that is not optional when none), in order.

    # Parameters

    recipe : `Recipe`
    names : `List[str]`
        Step names, training ids (all their seeds) or `train` (every training).
    runs : `str`, optional (default = `"runs"`)
        The folder the recipe was read with; its stamps go under `RUNS/.recipes/NAME`.
    overrides : `str`, optional (default = `""`)
        A JSON object of config keys given to every training, as `allennlp train -o`.
    until : `str`, optional
        Run only this step (or group) and the picked steps it needs, directly or not.
    threads : `int`, optional
        Torch threads of every training and command (default: each training's `threads`).
    dry_run : `bool`, optional (default = `False`)
        Print what would run and why, and run nothing.
    snapshots : `str`, optional
        The snapshots folder a training's or job's snapshot is restored from (default: models/snapshots).
    train_released : `bool`, optional (default = `False`)
        Train a training whose card's archive is released too, instead of putting it back from that
        archive (`srcframework.store.from_release`).
    """
    if threads is not None and threads < 1:
        raise InputError(f"--threads must be at least 1, not {threads}")
    if not dry_run:
        for step in recipe.steps:
            if step.is_training:
                _put_kept_back(step.folder)  # a run stopped in `_others_kept`
    states = StepStates(recipe, runs, overrides, releases=not train_released, snapshots=snapshots)
    planned = plan(recipe, names, states, until)
    if dry_run:
        for line in describe(planned, lambda step: running_note(recipe, runs, step)):
            print(line)
        return planned
    for item in planned:
        step = item.state.step
        states.forget(step)
        state = states.state(step)
        if state.status == FINISHED:
            say(f"skip {step.name}: {state.line()[len('skipped: '):]}")
            if states.stamp(step) is None:
                stamp_step(states, step)
        else:
            say(f"{step.name}: {state.line()}")
            with _step_lock(recipe, runs, step):
                if step.is_training:
                    _train(recipe, step, states, state, threads, snapshots)
                else:
                    _run_other(recipe, step, threads, snapshots)
                stamp_step(states, step)
        if step.is_training:
            install_card(step)
    return planned
