"""`allennlp recipe status` and `allennlp recipe snapshot`: where each step of a recipe stands, the
learning curve of each training under way and the card ids it installs; and the work under way
carried into the repository's snapshots (`srcframework.training.snapshot`)."""
import glob
import logging
import os
from typing import List, Optional

from srcframework.common.errors import InputError
from srcframework.common.training_runs import finished
from srcframework.recipes.recipe import Recipe
from srcframework.recipes.state import RESUME, STALE, StepStates, running_note

logger = logging.getLogger(__name__)


def status_lines(recipe: Recipe, runs: str = "runs", overrides: str = "", train_released: bool = False) -> List[str]:
    """One line a step (`NAME  STATUS  why`), the learning curve of each training under way and
    where each card the recipe installs stands; judged as `allennlp recipe run` with `overrides`
    and `train_released` judges them."""
    from srcframework.pretrained import archive_status, installed_path, model_card
    from srcframework.reports.training_curve import default_metrics, markdown_table, read_training_curve

    from srcframework.recipes.runner import not_needed

    states = StepStates(recipe, runs, overrides, releases=not train_released)
    width = max((len(step.name) for step in recipe.steps), default=0)
    lines = [f"recipe {recipe.name}: {recipe.description}".rstrip(": ")]
    skipped = not_needed(recipe, recipe.select([]), states)
    for step in recipe.steps:
        if step.name in skipped:
            lines.append(f"  {step.name:<{width}}  not needed: {skipped[step.name]}, after it, is put back from its "
                         "released archive")
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
    from srcframework.common.training_runs import epochs_done
    from srcframework.training import snapshot

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
    from srcframework.common.training_runs import epochs_done

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
    from srcframework.common.training_runs import epochs_done

    if step.is_training:
        return epochs_done(step.folder) > 0
    return any(os.path.exists(path) or glob.glob(glob.escape(path) + ".journal-*.jsonl") for path in step.outputs)


def _released(states: StepStates, step) -> bool:
    """Whether the recipe would put a training back from its card's released archive."""
    archive, _ = states.release(step)
    return archive is not None


def snapshot_under_way(recipe: Recipe, snapshots: Optional[str] = None, runs: str = "runs", overrides: str = "",
                       train_released: bool = False) -> List[dict]:
    """Snapshots each training and journaled job of `recipe` under way (`under_way`, with `runs`,
    `overrides` and `train_released` as the run has them) into `snapshots` (default: the
    repository's models/snapshots). A training whose snapshot would be over the size limit in full
    precision is saved in half precision (the weights in float16, the optimizer state in bfloat16),
    with a warning (its record says so). While the repository's models folder is over its limit,
    the trainings under way saved in full precision are saved again in half precision, the largest
    first, then those with the fewest epochs are left out (their snapshots removed), with a warning
    each, where that brings the folder within its limit; a finished training is never left out."""
    from srcframework.training import snapshot

    records, failed, paths = [], [], {}
    for path in under_way(recipe, runs, overrides, train_released):
        paths[snapshot.snapshot_name(path)] = path
        try:
            records.append(snapshot.save(path, folder=snapshots))
        except snapshot.SnapshotTooLarge as error:
            under_way_training = os.path.isdir(path) and not os.path.isfile(os.path.join(path, "metrics.json"))
            if not under_way_training:  # a finished training's weights or a job's journals are kept as they are
                failed.append(str(error))
                continue
            logger.warning("%s; saved in half precision instead (weights float16, optimizer state bfloat16)", error.plain)
            try:
                records.append(snapshot.save(path, folder=snapshots, float16=True))
            except snapshot.SnapshotTooLarge as still:
                failed.append(f"{still} in float16")
    if failed:
        saved = ", ".join(record["name"] for record in records) or "nothing"
        raise InputError(f"{'; '.join(failed)} (saved: {saved})")
    if records and snapshots is None:
        from srcframework import release

        # the repository's folder over its limit: trainings under way saved in full precision go to
        # half precision, the largest first, until it fits
        full = sorted((record for record in records if record["kind"] == "training" and not record["float16"]
                       and not record.get("finished")), key=lambda record: -record["size"])
        for record in full:
            if release.folder_bytes() <= release.FOLDER_MAX_BYTES:
                break
            logger.warning("%s holds %.1f MB, over its %.1f MB limit: %s saved in half precision instead (weights "
                           "float16, optimizer state bfloat16)", release.models_dir(), release.folder_bytes() / 1e6,
                           release.FOLDER_MAX_BYTES / 1e6, record["name"])
            records[records.index(record)] = snapshot.save(paths[record["name"]], float16=True)
        # still over: the trainings under way with the fewest epochs (the largest first among equals)
        # are left out (their snapshots removed), so that those furthest on travel; where its run
        # folder is gone, one left out starts over from its first epoch. None is left out where
        # leaving all of them out would not bring the folder within its limit.
        behind = sorted((record for record in records if record["kind"] == "training" and not record.get("finished")),
                        key=lambda record: (record["epoch"], -record["size"]))
        if release.folder_bytes() - sum(record["size"] for record in behind) > release.FOLDER_MAX_BYTES:
            behind = []
        for record in behind:
            if release.folder_bytes() <= release.FOLDER_MAX_BYTES:
                break
            logger.warning("%s holds %.1f MB, over its %.1f MB limit: %s (after %d epoch%s) left out; a machine "
                           "without %s starts it over from its first epoch", release.models_dir(),
                           release.folder_bytes() / 1e6, release.FOLDER_MAX_BYTES / 1e6, record["name"], record["epoch"],
                           "" if record["epoch"] == 1 else "s", record["source"])
            snapshot.remove(paths[record["name"]])
            records.remove(record)
        if release.folder_bytes() > release.FOLDER_MAX_BYTES:
            logger.warning("%s holds %.1f MB, over its %.1f MB limit: remove or release what is no longer needed "
                           "before committing", release.models_dir(), release.folder_bytes() / 1e6,
                           release.FOLDER_MAX_BYTES / 1e6)
    return records
