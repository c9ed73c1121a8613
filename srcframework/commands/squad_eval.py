"""`allennlp squad-eval DATA.json PREDICTIONS.json`: official SQuAD v1.1 EM/F1 of a predictions file.

Strict: the data file is validated (`iter_questions`: an empty gold answer, a paragraph without
`qas`, a duplicate question id are errors naming the file and question or paragraph); an empty
predictions file, `{}`, a non-string answer, or predictions whose ids match no question of the data
are errors naming the predictions file (`load_predictions` in `srcframework.metrics.records`, which
reads `allennlp predict` output with the same reader as the accent report). Unanswered questions
score 0 and are counted.
"""
import argparse
import json
import sys
from typing import Dict, List

from allennlp.commands import Subcommand

from srcframework.common.files import write_text_atomic
from srcframework.common.paths import check_output_path
from srcframework.data.errors import DatasetError
from srcframework.data.squad_file import iter_questions
from srcframework.metrics.records import load_predictions
from srcframework.metrics.squad import score_answers


def load_golds(path: str) -> Dict[str, List[str]]:
    """`{qid: gold answers}` of a SQuAD v1.1-format file, validated (see `iter_questions`)."""
    return {question.qid: question.answers for question in iter_questions(path)}


def score_file(data_file: str, predictions_file: str) -> dict:
    """
    Official EM/F1 (0-100) of `predictions_file` on `data_file`, with `questions` (how many the
    data holds), `unanswered` (how many of them have no prediction; they score 0) and
    `unknown_ids` (predictions for questions the data does not hold, ignored).

    # Raises

    DatasetError
        Bad data or predictions, or predictions that answer none of the data's questions.
    """
    golds = load_golds(data_file)
    if not golds:
        raise DatasetError(data_file, "the data file holds no questions")
    predictions = load_predictions(predictions_file)
    answered = [qid for qid in golds if qid in predictions]
    if not answered:
        example = next(iter(predictions))
        raise DatasetError(
            predictions_file,
            f"none of its {len(predictions)} prediction ids (e.g. {example!r}) is a question of {data_file} "
            f"({len(golds)} questions, e.g. {next(iter(golds))!r}): is it the right data file?",
        )
    result = dict(score_answers(golds, predictions))
    result["questions"] = len(golds)
    result["unanswered"] = len(golds) - len(answered)
    result["unknown_ids"] = len(predictions) - len(answered)
    return result


@Subcommand.register("squad-eval")
class SquadEval(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = (
            "Score predictions with the official SQuAD v1.1 EM/F1 (0-100) and print JSON, with the number "
            "of questions, of unanswered ones (scored 0) and of prediction ids not in the data."
        )
        subparser = parser.add_parser(
            self.name, description=description, help="Score predictions with the SQuAD v1.1 EM/F1."
        )
        subparser.add_argument("data_file", help="SQuAD v1.1-format JSON with gold answers")
        subparser.add_argument("predictions_file", help="{qid: answer} JSON, or `allennlp predict` output")
        subparser.add_argument("--output-file", help="also write the JSON result here")
        subparser.set_defaults(func=run)
        return subparser


def run(args: argparse.Namespace) -> dict:
    if args.output_file:
        check_output_path(args.output_file, "squad-eval --output-file")
    result = score_file(args.data_file, args.predictions_file)
    if result["unanswered"]:
        print(
            f"{args.predictions_file}: {result['unanswered']} of {result['questions']} questions of "
            f"{args.data_file} have no prediction and score 0",
            file=sys.stderr,
        )
    if result["unknown_ids"]:
        print(
            f"{args.predictions_file}: {result['unknown_ids']} prediction ids are not questions of "
            f"{args.data_file} and are ignored",
            file=sys.stderr,
        )
    text = json.dumps(result)
    print(text)
    if args.output_file:
        write_text_atomic(args.output_file, text + "\n")
    return result
