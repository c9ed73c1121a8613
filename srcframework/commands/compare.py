"""`allennlp compare STUDY.jsonnet -o OUT_DIR`: run every (model, test set) pair of a study and
write paper-style tables, figures and an HTML report. `allennlp compare STUDY.jsonnet --reanalyse
PAIRS.tar.xz -o OUT_DIR` writes the same outputs from a study's record alone, with no archive, no
data file and no step (`srcframework/studies/records.py`)."""
import argparse
import json
import logging
import os

from allennlp.commands import Subcommand

from srcframework.commands.noise import add_shard_argument
from srcframework.common.paths import check_output_path
from srcframework.metrics.statistics import BOOTSTRAP, PERMUTATIONS
from srcframework.studies.analysis import AnalysisOptions
from srcframework.studies.runner import run_study
from srcframework.studies.study import BOOTSTRAP_UNITS, load_study

logger = logging.getLogger(__name__)


@Subcommand.register("compare")
class Compare(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = (
            "Run a study: every model archive of STUDY on every test set of its input (or the "
            "listed pairs), scored with SQuAD EM/F1 overall and per country, gender and speaker. "
            "Writes results.json/.md/.csv/.tex, the figures the results have something for "
            "(f1_by_country.png, f1_vs_wer.png, robustness_drop.png, f1_intervals.png, f1_by_wer_bucket.png) "
            "and report.html into OUT_DIR, "
            "with bootstrap 95% intervals (contexts resampled with all their questions, unless "
            "--bootstrap-unit question), paired randomisation tests Holm-corrected within each table "
            "(clean against each noisy set, model against model, robust model against its twin), an "
            "equivalence test of each robust model's clean F1, and an error analysis, all computed from "
            "the cached predictions. "
            "Finished pairs are cached in OUT_DIR/pairs (keyed by the archive, data and reader "
            "config), so a rerun only does what is missing or changed."
        )
        subparser = parser.add_parser(self.name, description=description, help="Compare models on test sets.")
        subparser.add_argument("study", help="study file (Jsonnet or JSON)")
        subparser.add_argument("-o", "--output-dir", required=True, help="folder for the pairs and the reports")
        subparser.add_argument(
            "--workers", type=int, default=1,
            help="pairs run in parallel worker processes; each holds one model in memory at a time",
        )
        add_shard_argument(
            subparser, help="i/n: run every n-th pair from the i-th (array jobs on a shared OUT_DIR); then --merge")
        subparser.add_argument("--merge", action="store_true", help="run nothing; assemble the reports from the pairs")
        subparser.add_argument(
            "--reanalyse", metavar="PAIRS.tar.xz", default=None,
            help="run nothing and read no archive or data file: compute the results again from a study's record "
            "(its pairs' predictions and scores and pairs/inputs.json, as the recipes' report job packs them)",
        )
        subparser.add_argument("--force", action="store_true", help="rerun this run's pairs even when cached")
        subparser.add_argument("--cuda-device", type=int, default=None, help="overrides every model's cuda_device")
        subparser.add_argument(
            "--bootstrap", type=int, default=BOOTSTRAP,
            help="bootstrap resamples for each interval",
        )
        subparser.add_argument(
            "--permutations", type=int, default=PERMUTATIONS,
            help="randomisation rounds of each paired test (at least; a large family gets more, or the normal approximation)",
        )
        subparser.add_argument(
            "--bootstrap-unit", choices=BOOTSTRAP_UNITS, default=None,
            help="what the bootstrap and the tests resample: context (a paragraph's questions together) or question; "
            "default: the study's bootstrap_unit (context)",
        )
        subparser.add_argument("--seed", type=int, default=0, help="seed of the resamples and trials")
        subparser.add_argument(
            "--examples", type=int, default=5, help="example flips of each direction per noisy pair in report.html"
        )
        subparser.add_argument(
            "--markdown-into", metavar="MARKDOWN", default=None,
            help="also write the results tables into MARKDOWN, between its <!-- results:NAME --> and <!-- /results:NAME --> lines",
        )
        subparser.add_argument("--markdown-name", default=None, help="the results block of --markdown-into (default: its only one)")
        subparser.add_argument("--no-progress", action="store_true", help="show no progress bar")
        subparser.set_defaults(func=run)
        return subparser


def run(args: argparse.Namespace) -> dict:
    if args.workers < 1:
        raise ValueError("--workers must be at least 1")
    if args.merge and (args.shard != (0, 1) or args.force):
        raise ValueError("--merge assembles finished pairs; give it without --shard and --force")
    if args.reanalyse and (args.merge or args.shard != (0, 1) or args.force or args.workers != 1
                           or args.cuda_device is not None):
        raise ValueError("--reanalyse runs no pair; give it without --merge, --shard, --force, --workers and --cuda-device")
    check_output_path(args.output_dir, "compare --output-dir", is_dir=True)  # one line, before any work
    if args.markdown_into:
        check_output_path(args.markdown_into, "compare --markdown-into")
    analysis = AnalysisOptions(bootstrap=args.bootstrap, seed=args.seed, examples=args.examples,
                               permutations=args.permutations, bootstrap_unit=args.bootstrap_unit)
    if args.reanalyse:
        from srcframework.studies.records import reanalyse_records

        study = load_study(args.study, require_files=False)  # the record gives the archives' and sets' figures
        reanalyse_records(study, args.reanalyse, args.output_dir, analysis)
        summary = {"pairs": len(study.runs), "pairs_run": 0, "reanalysed": args.reanalyse, "assembled": True}
        return _finish(args, summary)
    study = load_study(args.study)
    summary = run_study(
        study,
        args.output_dir,
        workers=args.workers,
        shard=args.shard,
        merge=args.merge,
        force=args.force,
        cuda_device=args.cuda_device,
        progress=not args.no_progress,
        analysis=analysis,
    )
    return _finish(args, summary)


def _finish(args: argparse.Namespace, summary: dict) -> dict:
    if not summary["assembled"]:
        logger.info("shard done; run `allennlp compare %s -o %s --merge` once every shard is", args.study, args.output_dir)
    elif args.markdown_into:
        from srcframework.studies.markdown_into import markdown_into  # not at import: `python -m` runs that module

        name = markdown_into(os.path.join(args.output_dir, "results.json"), args.markdown_into, args.markdown_name)
        summary["markdown_into"] = f"{args.markdown_into} ({name})"
    print(json.dumps(summary))
    return summary
