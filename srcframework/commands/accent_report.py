"""`allennlp accent-report PREDICTIONS.jsonl ... -o OUT_DIR`: SQuAD EM/F1 per country, gender and
speaker of `span_qa` predictions, and the F1 range over countries (SQuAD-SRC, Tang et al. 2023)."""
import argparse
from typing import List

from allennlp.commands import Subcommand
from allennlp.common.checks import ConfigurationError

from srcframework.metrics.records import GROUP_KEYS, records_from_predictions
from srcframework.metrics.statistics import BOOTSTRAP
from srcframework.reports.accent import accent_report, markdown_report, write_accent_report


def parse_group_keys(text: str) -> List[str]:
    keys = [key.strip() for key in text.split(",") if key.strip()]
    if not keys:
        raise argparse.ArgumentTypeError(f"--group-keys needs comma-separated keys, got {text!r}")
    return keys


@Subcommand.register("accent-report")
class AccentReport(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = (
            "Official SQuAD v1.1 EM/F1 (0-100) of `allennlp predict --predictor span_qa` output, "
            "overall and per group (country, gender, speaker), with the F1 range over countries "
            "and, where predictions carry question and original_question, the WER of the questions; "
            "bootstrap 95% intervals of the overall F1 and each country's F1, and for the F1 range a "
            "permutation test of no difference between the countries (a bootstrap interval of a range runs high). "
            "Writes report.json, report.md and f1_by_country.png into OUT_DIR and prints the Markdown."
        )
        subparser = parser.add_parser(self.name, description=description, help="Score predictions per accent group.")
        subparser.add_argument("predictions", nargs="+", help="span_qa predict output (JSON lines); several are pooled")
        subparser.add_argument("-o", "--output-dir", required=True, help="folder for the report files")
        subparser.add_argument(
            "--group-keys",
            type=parse_group_keys,
            default=",".join(GROUP_KEYS),
            help="comma-separated group keys",
        )
        subparser.add_argument("--title", help="title of the Markdown report and the plot")
        subparser.add_argument(
            "--bootstrap", type=int, default=BOOTSTRAP,
            help="bootstrap resamples for the F1 intervals (each country resampled within itself), and rounds of "
                 "the F1 range's permutation test; 0: none",
        )
        subparser.add_argument("--seed", type=int, default=0, help="seed of the resamples")
        subparser.set_defaults(func=run)
        return subparser


def run(args: argparse.Namespace) -> dict:
    if args.bootstrap < 0:
        raise ConfigurationError("--bootstrap must be 0 (no intervals) or more")
    records = [record for path in args.predictions for record in records_from_predictions(path)]
    report = accent_report(records, args.group_keys, bootstrap=args.bootstrap or None, seed=args.seed)
    write_accent_report(report, args.output_dir, args.title)
    print(markdown_report(report, args.title), end="")
    return report
