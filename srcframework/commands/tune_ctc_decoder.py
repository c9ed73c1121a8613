"""`allennlp tune-ctc-decoder SRC_DIR OUTPUT_JSON --model DIR --language-model LM.arpa`: the LM weight
and word score of the `lexicon_beam` decoder, chosen by WER on held-out recordings."""
import argparse
import json
from typing import List

from allennlp.commands import Subcommand

from srcframework.common.errors import InputError
from srcframework.common.files import write_json_atomic
from srcframework.common.paths import check_output_path
from srcframework.data.squad_src_layout import SquadSrcFolder
from srcframework.jobs.decoder_tuning import tune_lexicon_decoder


def float_list(text: str) -> List[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError(f"not a comma-separated list of numbers: {text!r}") from None


@Subcommand.register("tune-ctc-decoder")
class TuneCtcDecoder(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = (
            "Choose the LM weight and word score of the lexicon_beam CTC decoder by WER on the recordings of a "
            "SQuAD-SRC folder's split: each recording is scored once by the speecht5_ctc model, then decoded with "
            "every pair of the grid. Writes the grid, the greedy WER and the best decoder config (its 'decoder' key "
            "goes into the recogniser's config). Use held-out training articles, never a test set."
        )
        subparser = parser.add_parser(self.name, description=description, help="Choose a CTC beam decoder's LM weights.")
        subparser.add_argument("src_dir", help="a SQuAD-SRC-style folder")
        subparser.add_argument("output_file", help="the JSON file to write")
        subparser.add_argument("--model", required=True, help="a speecht5_ctc folder (the recogniser)")
        subparser.add_argument("--language-model", required=True, help="an ARPA word LM (allennlp word-lm)")
        subparser.add_argument("--split", default="dev", help="reads fid2qid_<split>.csv")
        subparser.add_argument("--squad", default=None, help="the questions' SQuAD file (default: the folder's)")
        subparser.add_argument("--lm-weights", type=float_list, default="0.5,1,2,3", help="LM weights to try, comma-separated")
        subparser.add_argument("--word-scores", type=float_list, default="-1,0,1,2", help="word scores to try, comma-separated")
        subparser.add_argument("--beam-size", type=int, default=50, help="hypotheses kept per frame")
        subparser.add_argument("--limit", type=int, default=None, help="tune on this many recordings, drawn with --seed")
        subparser.add_argument("--seed", type=int, default=0, help="draws the --limit recordings")
        subparser.add_argument("--no-progress", action="store_true", help="show no progress bar")
        subparser.set_defaults(func=run)
        return subparser


def run(args: argparse.Namespace) -> dict:
    check_output_path(args.output_file, "tune-ctc-decoder output file")
    folder = SquadSrcFolder(args.src_dir, split=args.split, squad_file=args.squad)
    result = tune_lexicon_decoder(
        folder, args.model, args.language_model, args.lm_weights, args.word_scores,
        beam_size=args.beam_size, limit=args.limit, seed=args.seed, progress=not args.no_progress,
    )
    write_json_atomic(args.output_file, result, indent=1)
    for row in result["grid"]:
        print(f"lm_weight {row['lm_weight']:g}, word_score {row['word_score']:g}: WER {row['wer']:.2f}")
    best = result["best"]
    print(f"greedy WER {result['greedy_wer']:.2f}; best: lm_weight {best['lm_weight']:g}, word_score {best['word_score']:g}, "
          f"WER {best['wer']:.2f} over {result['recordings']} recordings")
    return result
