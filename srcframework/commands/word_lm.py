"""`allennlp word-lm SQUAD_JSON OUTPUT.arpa [--order 3]`: a word n-gram language model of a SQuAD
file's questions (IRSTLM), for the `lexicon_beam` CTC decoder."""
import argparse
import json

from allennlp.commands import Subcommand

from srcframework.common.paths import check_output_path
from srcframework.data.squad_file import iter_questions
from srcframework.speech.word_lm import SMOOTHING, build_word_lm


@Subcommand.register("word-lm")
class WordLm(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = (
            "Estimate a word n-gram language model (ARPA) of the questions of a SQuAD file with IRSTLM, "
            "normalised as the CTC recogniser writes transcripts. Build it from training questions only: "
            "the `lexicon_beam` decoder's weights are then chosen on held-out audio (tune-ctc-decoder)."
        )
        subparser = parser.add_parser(self.name, description=description, help="Build a word LM from a SQuAD file's questions.")
        subparser.add_argument("squad_file", help="SQuAD-format file whose questions the model learns")
        subparser.add_argument("output_file", help="the ARPA file to write")
        subparser.add_argument("--order", type=int, default=3, help="n-gram order")
        subparser.add_argument("--smoothing", default="msb", choices=SMOOTHING,
                               help="IRSTLM smoothing: msb modified shift-beta, sb shift-beta, wb Witten-Bell")
        subparser.set_defaults(func=run)
        return subparser


def run(args: argparse.Namespace) -> dict:
    check_output_path(args.output_file, "word-lm output file")
    questions = [q.question for q in iter_questions(args.squad_file, require_answers=False)]
    counts = build_word_lm(questions, args.output_file, order=args.order, smoothing=args.smoothing)
    print(json.dumps(counts))
    return counts
