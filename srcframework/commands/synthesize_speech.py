"""`allennlp synthesize-speech SQUAD_JSON OUT_DIR --voices ...`: spoken questions from offline voices."""
import argparse
import json
import logging

from allennlp.commands import Subcommand

from srcframework.jobs.synthesis import AUDIO_FORMATS, synthesize_questions
from srcframework.speech.voices import DEFAULT_VOICES, VOICE_SETS, VOICES

logger = logging.getLogger(__name__)


def format_summary(summary: dict) -> str:
    lines = [
        f"{summary['questions']} questions ({summary['synthesized_now']} synthesized now, {summary['reused']} reused), "
        f"{summary['total_audio_seconds']:.1f} s of audio in all",
        f"made {summary['audio_seconds']:.1f} s of audio in {summary['wall_seconds']:.1f} s "
        f"({summary['audio_seconds_per_second']:.2f} audio seconds per second)",
        "questions per speaker: " + ", ".join(f"{k} {v}" for k, v in summary["per_speaker"].items()),
    ]
    if summary["no_speech"]:
        lines.append(f"left out (the voice said nothing): {', '.join(summary['no_speech'])}")
    return "\n".join(lines)


@Subcommand.register("synthesize-speech")
class SynthesizeSpeech(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = (
            "Read the questions of a SQuAD-format file aloud with offline voices (flite, espeak-ng, Festival) into "
            "a SQuAD-SRC-layout folder: wavs/<fid>_<speaker>.wav (16 kHz mono 16-bit; .flac with --audio-format flac), fid2qid_<split>.csv, "
            "speakers.tsv and squad.json. Each question is read by one voice (round-robin, or seeded). "
            "A killed run resumes where it stopped when run again with the same arguments."
        )
        subparser = parser.add_parser(
            self.name, description=description, help="Synthesize spoken questions with offline voices."
        )
        subparser.add_argument("squad_file", help="SQuAD v1.1-format JSON")
        subparser.add_argument("out_dir", help="folder to write")
        subparser.add_argument(
            "--voices", default=",".join(DEFAULT_VOICES),
            help=f"comma-separated voices, one speaker each, or voice sets ({', '.join(VOICE_SETS)}); known voices: {', '.join(VOICES)}",
        )
        subparser.add_argument(
            "--split", default="dev",
            help="split (letters): names fid2qid_<split>.csv and the file ids",
        )
        subparser.add_argument("--workers", type=int, default=1, help="parallel worker processes")
        subparser.add_argument("--limit", type=int, default=None, help="only the first K questions")
        subparser.add_argument("--seed", type=int, default=None, help="deal the speakers over a seeded shuffle")
        subparser.add_argument(
            "--audio-format", default="wav", choices=sorted(AUDIO_FORMATS),
            help="wav (default), or flac: the same samples in 56%% of the space, 5 ms to read a recording against 0.3 ms",
        )
        subparser.add_argument("--no-progress", action="store_true", help="show no progress bar")
        subparser.set_defaults(func=run)
        return subparser


def run(args: argparse.Namespace) -> dict:
    summary = synthesize_questions(
        args.squad_file,
        args.out_dir,
        voices=args.voices,
        split=args.split,
        workers=args.workers,
        limit=args.limit,
        seed=args.seed,
        progress=not args.no_progress,
        audio_format=args.audio_format,
    )
    print(format_summary(summary))
    print(json.dumps(summary))
    return summary
