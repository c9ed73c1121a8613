"""`allennlp models [list|install|path|metrics|table]`: the model cards and their archives.

- `allennlp models` (or `models list [--json]`): each card, whether its archive is here, and where
  (or which command makes it);
- `allennlp models install [ID] [--archive PATH]`: copies an archive (default: the card's recipe
  output; without ID, the card that declares PATH as its output) into the models folder; a
  released model with no archive given and no recipe output built is fetched by name from the
  release host (`$SRCFRAMEWORK_MODELS_URL`), its sha256 checked, unless the folder has it already;
- `allennlp models release ID [--archive PATH] [--float16]`: a slim copy of a finished training's
  archive into the repository's `models/ID.tar.gz`, its sha256 and size into the card;
- `allennlp models verify`: every released archive against its card's sha256 and size;
- `allennlp models path ID`: the archive's local path (fetched when only hosted; a released archive's path in the repository), for scripts;
- `allennlp models metrics ID [--results FILE]`: fills the card's figures from its recipe's results
  (`--all`: every card whose results file is there);
- `allennlp models table [--into README.md]`: the README's "Models" table, from the cards (and
  their results files); `--into` writes it between the file's `<!-- models table -->` and
  `<!-- /models table -->` lines.
"""
import argparse
import json
import os
from typing import List

from allennlp.commands import Subcommand

from srcframework.pretrained import CARDS_ENV, archive_path, archive_status, cards_folder, install, model_cards
from srcframework.common.errors import InputError
from srcframework.store.paths import MODELS_ENV, installed_dir
from srcframework.reports.model_cards import fill_all_metrics, fill_metrics, models_table, table_into


@Subcommand.register("models")
class Models(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = (
            "List the model cards (modelcards/*.json) and whether each archive is here and where; install an "
            "archive into the models folder; fill a card's figures from its recipe's results; print the "
            "README's Models table."
        )
        subparser = parser.add_parser(
            self.name, description=description, help="List and install the pretrained models."
        )
        subparser.add_argument("--json", action="store_true", help="print the list as JSON")
        subparser.set_defaults(func=run_list)
        actions = subparser.add_subparsers(title="actions", metavar="ACTION")

        listing = actions.add_parser("list", help="the cards and their archives (the default)")
        listing.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print the list as JSON")
        listing.set_defaults(func=run_list)

        installing = actions.add_parser("install", help="copy an archive into the models folder, or fetch a released "
                                                        "model by name ($SRCFRAMEWORK_MODELS_URL), its sha256 checked")
        installing.add_argument("model_id", nargs="?", help="a card id (default: the card declaring --archive)")
        installing.add_argument("--archive", help="the archive to install (default: the card's recipe output)")
        installing.set_defaults(func=run_install)

        releasing = actions.add_parser("release", help="copy a finished training's archive, slimmed, into models/ "
                                                       "and record its sha256 and size in the card")
        releasing.add_argument("model_id")
        releasing.add_argument("--archive", help="the archive to release (default: the card's recipe output)")
        releasing.add_argument("--float16", action="store_true",
                               help="store the weights in half precision (only where evaluation F1 moves by at most 0.1)")
        releasing.set_defaults(func=run_release)

        verifying = actions.add_parser("verify", help="check every released archive against its card's sha256 and size")
        verifying.set_defaults(func=run_verify)

        path = actions.add_parser("path", help="print the local path of a model's archive")
        path.add_argument("model_id")
        path.set_defaults(func=run_path)

        metrics = actions.add_parser("metrics", help="fill a card's figures from its recipe's results")
        metrics.add_argument("model_id", nargs="?", help="a card id (or --all)")
        metrics.add_argument("--all", action="store_true", help="every card whose results file is there")
        metrics.add_argument("--results", help="results.json of a study, or `allennlp evaluate` metrics "
                                               "(default: the card's model_usage.results)")
        metrics.set_defaults(func=run_metrics)

        table = actions.add_parser("table", help="print the README's Models table")
        table.add_argument("--into", metavar="MARKDOWN", help="write it between the file's <!-- models table --> "
                                                              "and <!-- /models table --> lines instead")
        table.set_defaults(func=run_table)
        return subparser


def listing() -> List[dict]:
    rows = []
    for model_id, card in model_cards().items():
        state, where = archive_status(card)
        usage = card.model_usage
        rows.append({
            "id": model_id, "name": card.display_name, "archive": state, "where": where, "recipe": usage.recipe,
            "command": usage.command, "output": usage.output, "training_config": usage.training_config,
            "time_here": usage.time_here,
        })
    return rows


def format_listing(rows: List[dict]) -> str:
    table = [("MODEL", "ARCHIVE", "WHERE")]
    table += [(row["id"], row["archive"], row["where"]) for row in rows]
    widths = [max(len(row[i]) for row in table) for i in range(2)]
    lines = [f"{row[0].ljust(widths[0])}  {row[1].ljust(widths[1])}  {row[2]}" for row in table]
    lines.append(f"models folder: {installed_dir()} (${MODELS_ENV}); cards: {cards_folder()} (${CARDS_ENV})")
    return "\n".join(lines)


def run_list(args: argparse.Namespace) -> List[dict]:
    rows = listing()
    print(json.dumps(rows, indent=2) if args.json else format_listing(rows))
    return rows


def run_install(args: argparse.Namespace) -> str:
    target = install(args.model_id, args.archive)
    print(target)
    return target


def run_release(args: argparse.Namespace) -> dict:
    from srcframework.store.release import release

    done = release(args.model_id, args.archive, float16=args.float16)
    kept = ", ".join(f"{name} {size / 1e6:.2f} MB" for name, size in done["kept"] if size >= 100_000)
    dropped = ", ".join(f"{name} {size / 1e6:.2f} MB" for name, size in done["dropped"]) or "nothing"
    print(f"released {done['id']}: {done['archive']} ({done['size'] / 1e6:.1f} MB, sha256 {done['sha256'][:16]}...)")
    print(f"  largest members: {kept or 'none over 0.1 MB'}; left out: {dropped}")
    if done["snapshot_removed"]:
        print(f"  removed the snapshot {done['snapshot_removed']} of its training (commit the removal with the archive)")
    print(f"  the card records it: {done['archive']} and its sha256; commit both")
    return done


def run_verify(args: argparse.Namespace) -> List[str]:
    from srcframework.pretrained import checked_release, is_released, repository_root
    from srcframework.store.limits import folder_bytes
    from srcframework.store.paths import models_dir

    checked = []
    for model_id, card in model_cards().items():
        if is_released(card):
            path = checked_release(card, fetch_missing=False)  # a one-line error on a missing or changed file
            size = card.model_usage.size
            if size is not None and size != os.path.getsize(path):
                raise InputError(f"model {model_id!r}: {path} has {os.path.getsize(path)} bytes, its card says {size}")
            print(f"ok  {model_id}: {card.model_usage.archive_file} ({os.path.getsize(path) / 1e6:.1f} MB)")
            checked.append(model_id)
    print(f"{len(checked)} released archives match their cards; models/ holds {folder_bytes(models_dir(repository_root())) / 1e6:.1f} MB")
    return checked


def run_path(args: argparse.Namespace) -> str:
    path = archive_path(args.model_id)
    print(path)
    return path


def run_metrics(args: argparse.Namespace):
    if args.all == bool(args.model_id) or (args.all and args.results):
        raise InputError("models metrics: give a card id (optionally with --results FILE) or --all")
    if args.all:
        done = fill_all_metrics()
        for model_id, text in done.items():
            print(f"{model_id}: {text}")
        return done
    text = fill_metrics(args.model_id, args.results)
    print(text)
    return text


def run_table(args: argparse.Namespace) -> str:
    cards = model_cards()
    if args.into:
        table = table_into(args.into, cards)
        print(f"the models table ({len(cards)} models) -> {args.into}")
        return table
    table = models_table(cards)
    print(table, end="")
    return table
