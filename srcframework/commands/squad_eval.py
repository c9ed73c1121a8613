"""`allennlp squad-eval DATA.json PREDICTIONS.json`: official SQuAD v1.1 EM/F1 of a predictions file."""
import argparse
import json
import sys

from allennlp.commands import Subcommand

from srcframework.data.errors import DatasetError
from srcframework.data.squad_file import load_squad_json
from srcframework.metrics.squad import evaluate


def load_predictions(path: str) -> dict:
    """`{qid: answer}` from an official predictions file, or from `allennlp predict` JSON lines
    holding `id` and `best_span_str`."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (FileNotFoundError, UnicodeDecodeError) as err:
        raise DatasetError(path, f"cannot read predictions: {err}") from None
    try:
        predictions = json.loads(text)
        if isinstance(predictions, dict):
            bad = [k for k, v in predictions.items() if not isinstance(v, str)]
            if bad:
                raise DatasetError(path, f"prediction for {bad[0]!r} is not a string")
            return predictions
    except json.JSONDecodeError:
        pass
    predictions = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            predictions[row["id"]] = row["best_span_str"]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise DatasetError(
                path, f"line {number}: neither an official {{qid: answer}} file nor predict output with id/best_span_str"
            ) from None
    return predictions


@Subcommand.register("squad-eval")
class SquadEval(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = "Score predictions with the official SQuAD v1.1 EM/F1 (0-100) and print JSON."
        subparser = parser.add_parser(self.name, description=description, help=description)
        subparser.add_argument("data_file", help="SQuAD v1.1-format JSON with gold answers")
        subparser.add_argument("predictions_file", help="{qid: answer} JSON, or `allennlp predict` output")
        subparser.add_argument("--output-file", help="also write the JSON result here")
        subparser.set_defaults(func=run)
        return subparser


def run(args: argparse.Namespace) -> dict:
    dataset = load_squad_json(args.data_file)
    result = evaluate(dataset["data"], load_predictions(args.predictions_file))
    text = json.dumps(result)
    print(text)
    if args.output_file:
        with open(args.output_file, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    return result
