"""`allennlp cascade SRC_DIR ARCHIVE OUT_DIR --recognizer ...`: spoken questions -> ASR -> a trained
text QA model, scored overall and per accent group in one call (`srcframework.jobs.cascade`)."""
import argparse
import json
import os

from allennlp.commands import Subcommand

from srcframework.commands.transcribe import add_transcription_arguments, folder_and_settings
from srcframework.jobs.cascade import run_cascade


@Subcommand.register("cascade")
class Cascade(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = (
            "Spoken-question QA as a cascade: transcribe the recordings of a SQuAD-SRC-layout folder "
            "with a speech recognizer, answer the transcripts with a trained model archive, and write "
            "predictions.jsonl, metrics.json (EM/F1 overall and per country, gender and speaker, WER "
            "per group) and the accent report into OUT_DIR. Transcripts are kept in "
            "OUT_DIR/transcripts.json and reused by a rerun; --transcripts FILE uses an existing "
            "`allennlp transcribe` output of SRC_DIR instead."
        )
        subparser = parser.add_parser(
            self.name, description=description, help="Transcribe spoken questions, answer them and score per accent."
        )
        subparser.add_argument("src_dir", help="SQuAD-SRC-layout folder")
        subparser.add_argument("archive_file", help="trained model archive (model.tar.gz)")
        subparser.add_argument("out_dir", help="folder for transcripts, predictions and metrics")
        add_transcription_arguments(subparser)
        subparser.add_argument("--cuda-device", type=int, default=-1, help="GPU for the QA model (-1: CPU)")
        subparser.add_argument("--predict-batch-size", type=int, default=32, help="questions per QA forward pass")
        subparser.add_argument(
            "--transcripts", default=None, metavar="FILE",
            help="an existing `allennlp transcribe` output of SRC_DIR to answer instead of transcribing "
                 "(--recognizer, --split, --squad, --workers, --batch-size and --skip-invalid are then unused)",
        )
        subparser.set_defaults(func=run)
        return subparser


def run(args: argparse.Namespace) -> dict:
    folder, settings = folder_and_settings(args)
    metrics = run_cascade(
        folder,
        args.archive_file,
        args.out_dir,
        settings,
        cuda_device=args.cuda_device,
        predict_batch_size=args.predict_batch_size,
        transcripts_path=args.transcripts,
    )
    with open(os.path.join(args.out_dir, "report.md"), encoding="utf-8") as handle:
        print(handle.read(), end="")
    print(json.dumps({key: metrics[key] for key in ("questions", "unanswered", "em", "f1", "wer")}))
    return metrics
