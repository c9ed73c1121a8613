"""`allennlp transcribe SRC_DIR OUT_JSON --recognizer ...`: ASR transcripts of spoken questions as a
SQuAD file, with WER."""
import argparse
import json
import logging
from typing import Optional, Tuple

from allennlp.commands import Subcommand

from srcframework.common.audio import MAX_QUESTION_SECONDS
from srcframework.data.squad_src_layout import SquadSrcFolder
from srcframework.jobs.transcription import TranscriptionSettings, transcribe

logger = logging.getLogger(__name__)


def format_wer(report: dict) -> str:
    lines = [f"WER ({report['normalization']})"]
    overall = report["overall"]
    lines.append(f"  overall: {overall['wer']:.2f}% over {overall['questions']} questions")
    for key in ("country", "gender", "speaker"):
        for name, row in report[f"by_{key}"].items():
            lines.append(f"  {key} {name}: {row['wer']:.2f}% ({row['questions']} questions)")
    return "\n".join(lines)


def format_summary(summary: dict) -> str:
    lines = [
        f"{summary['questions']} questions transcribed ({summary['transcribed_now']} now, {summary['reused']} reused); "
        f"{summary['no_audio']} questions without audio left out; {summary['empty_transcripts']} empty transcripts "
        "(kept in the output's transcription.empty_transcripts, counted in the WER)",
    ]
    if summary.get("changed_audio"):
        lines.append(
            f"{summary['changed_audio']} recordings are not those an earlier run transcribed into this output "
            "(another folder, or replaced): transcribed again"
        )
    if summary.get("skipped"):
        skipped = ", ".join(f"{n} {reason}" for reason, n in summary["skipped"].items())
        lines.append(f"left out by the folder's join rules: {skipped}")
    if summary.get("invalid_audio"):
        lines.append(f"{summary['invalid_audio']} recordings left out (--skip-invalid):")
        lines.extend(f"  {row['path']}: {row['error']}" for row in summary["invalid_files"])
    if summary["real_time_factor"] is not None:
        lines.append(
            f"{summary['audio_seconds']:.1f} s of audio in {summary['asr_seconds']:.1f} s "
            f"(real-time factor {summary['real_time_factor']:.3f})"
        )
    return "\n".join(lines)


def add_transcription_arguments(subparser: argparse.ArgumentParser) -> None:
    """The options `transcribe` and `cascade` share."""
    subparser.add_argument(
        "--recognizer", default="pocketsphinx",
        help='a registered SpeechRecognizer name or a JSON config such as '
             '\'{"type": "wav2vec2_ctc", "model_name_or_path": "DIR"}\'',
    )
    subparser.add_argument("--split", default="dev", help="reads fid2qid_<split>.csv")
    subparser.add_argument(
        "--squad", default=None,
        help="the questions' SQuAD file (default: SRC_DIR/squad_<split>.json, else SRC_DIR/squad.json)",
    )
    subparser.add_argument("--workers", type=int, default=1, help="parallel worker processes")
    subparser.add_argument("--batch-size", type=int, default=8, help="recordings per recognizer call")
    subparser.add_argument(
        "--skip-invalid", action="store_true",
        help="leave out recordings that are missing, empty, unreadable, silent or hold NaN/inf samples, and rows the "
             "folder's join rules refuse (counted and listed) instead of stopping at the first",
    )
    subparser.add_argument(
        "--max-seconds", type=parse_max_seconds, default=MAX_QUESTION_SECONDS,
        help=f"the recognizer hears the first MAX_SECONDS of a longer recording, as the squad_src reader's models "
             f"do (default {MAX_QUESTION_SECONDS:g}); 'none' for all of it",
    )
    subparser.add_argument("--no-progress", action="store_true", help="show no progress bar")


def parse_max_seconds(text: str) -> Optional[float]:
    """A positive number of seconds, or `none` for no limit."""
    if text.strip().lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"--max-seconds takes a positive number of seconds or 'none', got {text!r}")
    return value


def folder_and_settings(args: argparse.Namespace) -> Tuple[SquadSrcFolder, TranscriptionSettings]:
    """The folder and the transcription settings that the options of `add_transcription_arguments` give."""
    folder = SquadSrcFolder(args.src_dir, split=args.split, squad_file=args.squad)
    settings = TranscriptionSettings(args.recognizer, args.workers, args.batch_size, args.skip_invalid, not args.no_progress,
                                     max_seconds=getattr(args, "max_seconds", MAX_QUESTION_SECONDS))
    return folder, settings


@Subcommand.register("transcribe")
class Transcribe(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = (
            "Transcribe the recordings of a SQuAD-SRC-layout folder (wavs/, fid2qid_<split>.csv, "
            "speakers.tsv) with a speech recognizer into a SQuAD-format file whose questions are the "
            "transcripts; each keeps original_question, fid, speaker, country and gender. Prints the "
            "WER overall, per country, gender and speaker and writes it to OUT_JSON.wer.json. "
            "A killed run resumes where it stopped when run again with the same arguments; a transcript is "
            "reused only while its recording's sha256 is the same. A bad recording (missing, empty, "
            "unreadable, silent, NaN or infinite samples) stops the run naming the file, keeping the "
            "journal of what was done, unless --skip-invalid is given."
        )
        subparser = parser.add_parser(self.name, description=description, help="Transcribe spoken questions.")
        subparser.add_argument("src_dir", help="SQuAD-SRC-layout folder")
        subparser.add_argument("output_file", help="SQuAD-format JSON to write")
        add_transcription_arguments(subparser)
        subparser.set_defaults(func=run)
        return subparser


def run(args: argparse.Namespace) -> dict:
    folder, settings = folder_and_settings(args)
    summary = transcribe(folder, args.output_file, settings)
    with open(f"{args.output_file}.wer.json", encoding="utf-8") as handle:
        print(format_wer(json.load(handle)))
    print(format_summary(summary))
    print(json.dumps(summary))
    return summary
