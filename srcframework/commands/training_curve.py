"""`allennlp training-curve RUN [RUN ...] [-o curve.png]`: the learning curve of `allennlp train`
runs, from the metrics AllenNLP writes after each epoch; a table a run, and a plot."""
import argparse

from allennlp.commands import Subcommand

from srcframework.reports.training_curve import (
    check_metrics,
    default_metrics,
    markdown_table,
    read_training_curve,
    write_training_curves,
)


@Subcommand.register("training-curve")
class TrainingCurveCommand(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = (
            "The per-epoch metrics of `allennlp train` runs (their metrics_epoch_N.json), one Markdown "
            "table a run with the best epoch on the config's validation metric marked; with -o, a PNG "
            "of the chosen metrics, a line a run. Reads a run while it trains."
        )
        subparser = parser.add_parser(self.name, description=description, help="Learning curves of training runs.")
        subparser.add_argument("runs", nargs="+", help="serialization folders (the -s of allennlp train)")
        subparser.add_argument(
            "--metrics",
            help="comma-separated metric names, e.g. training_loss,validation_cer "
            "(default: the losses and the metric each config's trainer watches)",
        )
        subparser.add_argument("-o", "--output", help="write the plot here (PNG)")
        subparser.add_argument("--title", help="title of the plot")
        subparser.set_defaults(func=run)
        return subparser


def run(args: argparse.Namespace) -> None:
    curves = [read_training_curve(path) for path in args.runs]
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()] if args.metrics else default_metrics(curves)
    check_metrics(curves, metrics)
    for number, curve in enumerate(curves):
        print(("\n" if number else "") + markdown_table(curve, metrics), end="")
    if args.output:
        write_training_curves(curves, metrics, args.output, args.title)
        print(f"\nplot: {args.output}")
