"""`allennlp snapshot [list|save|restore|remove]`: long work under way, carried to the next machine in
the repository (`srcframework.store.snapshot`).

- `allennlp snapshot save RUN_DIR [--name N] [--float16] [--keep-initial]`: a training's newest
  epoch (weights and optimizer state; the weights that equal those of the model built afresh from its
  config.json are left out, unless `--keep-initial`), or `save OUTPUT` for a journaled job's
  journals, into `models/snapshots/`;
- `allennlp snapshot restore RUN_DIR`: puts it back, so that `allennlp train CONFIG -s RUN_DIR
  --recover` (or the job's own command) continues from it;
- `allennlp snapshot list`: what the repository holds; `remove RUN_DIR` deletes one.
"""
import argparse
from typing import Dict, List, Optional

from allennlp.commands import Subcommand

from srcframework.common.errors import InputError
from srcframework.store import paths, snapshot


@Subcommand.register("snapshot")
class Snapshot(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = ("Carry a training (or a journaled job) under way to the next machine: its newest epoch's "
                       "checkpoint, or its journals, as a small file in the repository's models/snapshots/.")
        subparser = parser.add_parser(self.name, description=description,
                                      help="Save or restore a training under way in the repository.")
        subparser.add_argument("--folder", help="the snapshots folder (default: models/snapshots of the clone)")
        subparser.set_defaults(func=run_list)
        actions = subparser.add_subparsers(title="actions", metavar="ACTION")

        listing = actions.add_parser("list", help="the snapshots the repository holds (the default)")
        listing.set_defaults(func=run_list)

        saving = actions.add_parser("save", help="snapshot a training folder (or a job output's journals)")
        saving.add_argument("source", help="a serialization folder with a finished epoch, or a journaled job's output path")
        saving.add_argument("--name", help="the snapshot's name (default: the source's last two path parts)")
        saving.add_argument("--float16", action="store_true", help="weights in float16, the optimizer state in bfloat16")
        saving.add_argument("--keep-initial", action="store_true",
                            help="store the weights equal to their initialisation too (by default they are left out, "
                                 "and restore builds them again from config.json and the files it names)")
        saving.set_defaults(func=run_save)

        restoring = actions.add_parser("restore", help="put a snapshot back where it came from")
        restoring.add_argument("source", help="the folder or output the snapshot was taken of")
        restoring.add_argument("--to", dest="target", help="restore into this folder or output instead")
        restoring.add_argument("--if-any", action="store_true", help="say so and succeed when there is no snapshot of it")
        restoring.set_defaults(func=run_restore)

        removing = actions.add_parser("remove", help="delete the snapshot of a folder or output")
        removing.add_argument("source")
        removing.set_defaults(func=run_remove)
        return subparser


def run_list(args: argparse.Namespace) -> List[Dict]:
    found = snapshot.records(args.folder)
    for record in found:
        print(snapshot.describe(record))
    if not found:
        print(f"no snapshots in {args.folder or paths.snapshots_dir()}")
    return found


def run_save(args: argparse.Namespace) -> Dict:
    record = snapshot.save(args.source, name=args.name, folder=args.folder, float16=args.float16,
                           leave_out_initial=not args.keep_initial)
    print(f"saved {snapshot.describe(record)}")
    print(f"  commit models/snapshots/{record['name']}.tar.gz and .json; on another machine "
          f"`allennlp snapshot restore {record['source']}` puts it back")
    return record


def run_restore(args: argparse.Namespace) -> Optional[Dict]:
    record = snapshot.restore(args.source, folder=args.folder, target=args.target)
    if record is None:
        if args.if_any:
            print(f"no snapshot of {args.source}")
            return None
        raise InputError(f"no snapshot of {args.source} in {args.folder or paths.snapshots_dir()} "
                         "(allennlp snapshot list shows what there is)")
    where = args.target or args.source
    if not record["restored"]:
        print(f"kept {where}: it already holds what the snapshot {record['name']} holds, or more")
    elif record["kind"] == "training":
        print(f"restored {record['name']} into {where}: epoch {record['epoch']}; continue with "
              f"`allennlp train CONFIG -s {where} --recover`")
    else:
        print(f"restored {record['name']}: {record.get('journal_lines', 0)} journal lines beside {where}; "
              "run its command again to continue")
    return record


def run_remove(args: argparse.Namespace) -> Optional[str]:
    name = snapshot.remove(args.source, folder=args.folder)
    if name is None:
        raise InputError(f"no snapshot of {args.source}")
    print(f"removed the snapshot {name} (commit its removal)")
    return name
