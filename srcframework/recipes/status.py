"""`allennlp recipe status`: where each step of a recipe stands, the learning curve of each training
under way, whether the repository's snapshots carry it, and the card ids it installs; and which
work is under way (`under_way`), which `allennlp recipe snapshot` saves
(`srcframework.store.quota`). This module only reports: it writes nothing."""
import glob
import os
from typing import List, Optional

from srcframework.common.training_runs import epochs_done, finished
from srcframework.recipes.recipe import Recipe
from srcframework.recipes.state import RESUME, STALE, StepStates, running_note


def status_lines(recipe: Recipe, runs: str = "runs", overrides: str = "", train_released: bool = False,
                 snapshots: Optional[str] = None) -> List[str]:
    """One line a step (`NAME  STATUS  why`), the learning curve of each training under way and
    where each card the recipe installs stands; judged as `allennlp recipe run` with `overrides`
    and `train_released` judges them."""
    from srcframework.pretrained import archive_status, installed_path, model_card
    from srcframework.reports.training_curve import default_metrics, markdown_table, read_training_curve

    from srcframework.recipes.runner import not_needed, put_back_from_release

    states = StepStates(recipe, runs, overrides, releases=not train_released, snapshots=snapshots)
    width = max((len(step.name) for step in recipe.steps), default=0)
    lines = [f"recipe {recipe.name}: {recipe.description}".rstrip(": ")]
    skipped = not_needed(recipe, recipe.select([]), states)
    for step in recipe.steps:
        if step.name in skipped:
            user = recipe.step(skipped[step.name])
            how = ("is put back from its released archive" if put_back_from_release(states, user)
                   else "has finished and reads it no more (it was never here)")
            lines.append(f"  {step.name:<{width}}  not needed: {user.name}, after it, {how}")
            continue
        state = states.state(step)
        note = running_note(recipe, runs, step) or ("  (optional: runs when named)" if step.optional else "")
        lines.append(f"  {step.name:<{width}}  {state.line()}{note}")
        if state.status == RESUME:
            curve = read_training_curve(step.folder)
            table = markdown_table(curve, default_metrics([curve]))
            lines.extend("      " + row for row in table.splitlines())
            lines.append("      " + _snapshot_line(recipe, step))
    for step in recipe.steps:
        if step.card:
            where = installed_path(step.card)
            if os.path.isfile(where):
                lines.append(f"  card {step.card}: installed {where}")
                continue
            found, place = archive_status(model_card(step.card))
            shown = f"{found} {place}" if found in ("released", "built", "hosted") else "not installed"
            lines.append(f"  card {step.card}: {shown}")
    return lines


def _snapshot_line(recipe: Recipe, step) -> str:
    """Whether the repository's snapshots carry a training under way as far as this folder has it."""
    from srcframework.store import snapshot

    record, done = snapshot.find(step.folder), epochs_done(step.folder)
    if record is None:
        return (f"no snapshot in models/snapshots: a machine without {step.folder} starts it over "
                f"(`allennlp recipe snapshot {recipe.name}` saves one where the models folder has room)")
    half = ", half precision" if record.get("float16") else ""
    epochs = f"{record.get('epoch')} epoch{'' if record.get('epoch') == 1 else 's'}"
    if record.get("epoch", 0) < done:
        return (f"snapshot in models/snapshots: after {epochs}{half}, of the {done} done here "
                f"(`allennlp recipe snapshot {recipe.name}` saves the newer)")
    return f"snapshot in models/snapshots: after {epochs}{half}, as far as here"


def under_way(recipe: Recipe, runs: str = "runs", overrides: str = "", train_released: bool = False) -> List[str]:
    """The training folders that finished an epoch but not their training; finished trainings that
    a step not finished yet needs, directly or through other steps (a second stage, a study), unless
    the recipe would put them back from a released archive or train them again (stale), judged as
    `allennlp recipe run` with `overrides` and `train_released` judges them; and the outputs of
    steps whose journals are there but not the output."""
    needed = _needed(recipe)
    states = StepStates(recipe, runs, overrides, releases=not train_released)
    found = []
    for step in recipe.steps:
        if step.is_training:
            if not finished(step.folder) and epochs_done(step.folder):
                found.append(step.folder)
            elif (finished(step.folder) and step.name in needed and not _released(states, step)
                  and states.state(step).status != STALE):  # a stale one the run trains again
                found.append(step.folder)
            continue
        for output in step.outputs:
            if not os.path.exists(output) and glob.glob(glob.escape(output) + ".journal-*.jsonl"):
                found.append(output)
    return found


def _done(step) -> bool:
    """Whether a training has finished, or another step's outputs are all there."""
    if step.is_training:
        return finished(step.folder)
    return bool(step.outputs) and all(os.path.exists(path) for path in step.outputs)


def _needed(recipe: Recipe) -> set:
    """The names of the steps that a step not finished yet needs, directly or through others (an
    optional step counts only once it has started: a training with an epoch, another step with
    one of its outputs or journals)."""
    return recipe.needs_of([step.name for step in recipe.steps if not _done(step) and (not step.optional or _started(step))])


def _started(step) -> bool:
    if step.is_training:
        return epochs_done(step.folder) > 0
    return any(os.path.exists(path) or glob.glob(glob.escape(path) + ".journal-*.jsonl") for path in step.outputs)


def _released(states: StepStates, step) -> bool:
    """Whether the recipe would put a training back from its card's released archive."""
    archive, _ = states.release(step)
    return archive is not None
