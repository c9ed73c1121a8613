"""`allennlp recipe list | status NAME | run NAME [STEP ...] | snapshot NAME`: an experiment of
`recipes/` (its `recipe.jsonnet`) run by steps (`srcframework.recipes`).

- `allennlp recipe list`: the recipes and their steps;
- `allennlp recipe status NAME [-o OVERRIDES] [--train-released]`: where each step stands
  (finished, stale, to resume, to run) and why, as `run` with the same options would judge it;
- `allennlp recipe run NAME [STEP ...] [--dry-run] [--until STEP] [-o OVERRIDES] [--threads N]`:
  runs the steps named (a training id names all its seeds, `train` every training; none: every
  step), skipping finished ones and resuming stopped trainings; `--until STEP` runs STEP and the
  steps it needs, nothing else; `--dry-run` prints what would run and why; `-o` reaches every
  training;
- `allennlp recipe snapshot NAME [-o OVERRIDES] [--train-released]`: the trainings and journaled
  jobs under way into models/snapshots, judged as `run` with the same options judges them.
"""
import argparse

from allennlp.commands import Subcommand

from srcframework.common.errors import InputError
from srcframework.recipes.recipe import load_recipe, recipe_names
from srcframework.recipes.runner import run_recipe
from srcframework.recipes.status import status_lines, under_way
from srcframework.store.quota import save_snapshots


@Subcommand.register("recipe")
class RecipeCommand(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = ("Run an experiment of recipes/ by steps, as its recipe.jsonnet declares them: a finished step "
                       "is skipped (by fingerprint), a stopped training resumed, the rest run.")
        subparser = parser.add_parser(self.name, description=description, help="Run an experiment of recipes/ by steps.")
        subparser.set_defaults(func=run_list)
        actions = subparser.add_subparsers(title="actions", metavar="ACTION")

        listing = actions.add_parser("list", help="the recipes and their steps (the default)")
        listing.set_defaults(func=run_list)

        status = actions.add_parser("status", help="where each step of a recipe stands, and why")
        _recipe_argument(status)
        _train_released(status, "judge as `run --train-released`: a training whose card's archive is released is "
                                "to run, not to be put back")
        _common(status)
        status.set_defaults(func=run_status)

        running = actions.add_parser("run", help="run a recipe's steps (all of them, or those named)")
        _recipe_argument(running)
        running.add_argument("steps", nargs="*", help="steps, training ids (all their seeds) or `train` (default: every step)")
        running.add_argument("--dry-run", action="store_true", help="print what would run and why; run nothing")
        running.add_argument("--until", help="run this step and the steps it needs, directly or not; nothing else")
        running.add_argument("--threads", type=int, help="torch threads of every training and command")
        running.add_argument("--snapshots", help="restore snapshots from this folder (default: models/snapshots)")
        _train_released(running, "train a training whose card's archive is released too, instead of putting it back "
                                 "from that archive (to reproduce it)")
        _common(running)
        running.set_defaults(func=run_run)

        snapshot = actions.add_parser("snapshot", help="the recipe's trainings and jobs under way into models/snapshots")
        _recipe_argument(snapshot)
        snapshot.add_argument("--snapshots", help="save into this folder (default: models/snapshots)")
        _train_released(snapshot, "as `run --train-released`: a finished training a later step needs is saved even "
                                  "when its card's archive is released")
        _common(snapshot)
        snapshot.set_defaults(func=run_snapshot)
        return subparser


def _recipe_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("recipe", help="a recipe of recipes/, or a recipe folder")


def _train_released(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument("--train-released", action="store_true", help=help)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--overrides", default="", help="a JSON object of config keys given to every training "
                        "(`allennlp train -o`), e.g. '{\"trainer.num_epochs\": 1}'")
    parser.add_argument("--runs", default="runs", help="the folder the recipe's outputs and stamps go under (paths "
                        "a config or study spells out stay as they are)")


def _check_overrides(overrides: str) -> None:
    import json

    if not overrides:
        return
    try:
        value = json.loads(overrides)
    except ValueError as err:
        raise InputError(f"-o: not a JSON object: {err}") from None
    if not isinstance(value, dict):
        raise InputError(f"-o: give a JSON object of config keys, not {overrides}")


def run_list(args: argparse.Namespace) -> list:
    names = recipe_names()
    for name in names:
        recipe = load_recipe(name)
        print(f"{name}: {recipe.description}")
        print(f"  steps: {' '.join(step.name for step in recipe.steps if not step.optional)}")
        optional = [step.name for step in recipe.steps if step.optional]
        if optional:
            print(f"  when named: {' '.join(optional)}")
    return names


def run_status(args: argparse.Namespace) -> list:
    _check_overrides(args.overrides)
    lines = status_lines(load_recipe(args.recipe, runs=args.runs), args.runs, args.overrides, args.train_released)
    print("\n".join(lines))
    return lines


def run_run(args: argparse.Namespace) -> list:
    _check_overrides(args.overrides)
    recipe = load_recipe(args.recipe, runs=args.runs)
    return run_recipe(recipe, args.steps, runs=args.runs, overrides=args.overrides, until=args.until,
                      threads=args.threads, dry_run=args.dry_run, snapshots=args.snapshots,
                      train_released=args.train_released)


def run_snapshot(args: argparse.Namespace) -> list:
    _check_overrides(args.overrides)
    recipe = load_recipe(args.recipe, runs=args.runs)
    records = save_snapshots(under_way(recipe, args.runs, args.overrides, args.train_released), args.snapshots)
    where = args.snapshots or "models/snapshots"
    for record in records:
        print(f"saved {record['name']} ({record['source']}): commit {where}/{record['name']}.tar.gz and .json")
    if not records:
        print("nothing under way")
    return records
