"""`allennlp noise INPUT.json OUTPUT.json --noise CONFIG`: build a synthetic challenge set."""
import argparse
import json
import logging

from allennlp.commands import Subcommand
from allennlp.common.checks import ConfigurationError

from srcframework.common.errors import InputError, json_error_text
from srcframework.common.paths import check_output_path
from srcframework.jobs.challenge_set import make_challenge_set
from srcframework.noise.preset import noise_params

logger = logging.getLogger(__name__)


def parse_shard(text: str):
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--shard takes {SHARD_FORM}, got {text!r}") from None
    if not (count >= 1 and 0 <= index < count):
        raise argparse.ArgumentTypeError(f"--shard takes {SHARD_FORM}, got {text!r}")
    return index, count


SHARD_FORM = "i/n with 0 <= i < n (e.g. --shard 0/4)"


def add_shard_argument(subparser: argparse.ArgumentParser, help: str) -> None:
    """Adds `--shard i/n` (`parse_shard`) to `subparser`. argparse takes a value starting with `-`
    (`--shard -1/2`) for an option and says only "expected one argument": the subparser's error
    says the form instead."""
    subparser.add_argument("--shard", type=parse_shard, default="0/1", help=help)
    error = subparser.error

    def shard_error(message: str):
        if message == "argument --shard: expected one argument":
            message = f"argument --shard: expected {SHARD_FORM}; a value starting with '-' is not one"
        return error(message)

    subparser.error = shard_error


def parse_noise(text: str) -> dict:
    """A JSON object, a preset name such as `asr-fast-3voices`, or a type name such as `keyboard`."""
    text = text.strip()
    if text.startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as err:
            raise argparse.ArgumentTypeError(f"--noise is not valid JSON: {json_error_text(err)}") from None
    try:
        return noise_params(text)
    except InputError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


@Subcommand.register("noise")
class Noise(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = (
            "Write a SQuAD-format challenge set whose questions went through a noise source. "
            "Each question keeps its clean text as `original_question`; the file records the noise "
            "config. A killed run resumes where it stopped when run again with the same arguments."
        )
        subparser = parser.add_parser(self.name, description=description, help="Build a noisy challenge set.")
        subparser.add_argument("input_file", help="SQuAD v1.1-format JSON")
        subparser.add_argument("output_file", help="where to write the challenge set")
        subparser.add_argument(
            "--noise", type=parse_noise,
            help='noise source: a preset (asr-fast-3voices, noiseqa-mix, ...: `allennlp list-noise`), a registered '
                 'type (keyboard, misspelling, asr, back_translation, ...) or a JSON config such as '
                 '\'{"type": "asr", "synthesizer": {"type": "flite", "voice": "slt"}}\'',
        )
        subparser.add_argument("--type", dest="noise", type=parse_noise, help="alias of --noise NAME")
        subparser.add_argument(
            "--seed", type=int, default=0,
            help="seed of the noise: the same seed, config and question give the same noisy question",
        )
        subparser.add_argument("--workers", type=int, default=1, help="parallel worker processes")
        subparser.add_argument("--batch-size", type=int, default=None,
                               help="questions per engine call (default: the source's: 16, 256 for back_translation)")
        add_shard_argument(subparser, help="i/n: this job's share, for array jobs")
        subparser.add_argument("--no-progress", action="store_true", help="show no progress bar")
        subparser.add_argument("--force", action="store_true",
                               help="replace a finished challenge set at OUTPUT made with another configuration")
        subparser.set_defaults(func=run)
        return subparser


def run(args: argparse.Namespace) -> dict:
    if args.noise is None:
        raise ConfigurationError("say which noise source to use: --noise NAME or --noise '{\"type\": ...}'")
    if args.workers < 1 or (args.batch_size is not None and args.batch_size < 1):
        raise ConfigurationError("--workers and --batch-size must be at least 1")
    # the journals and shard files go beside the output file, in the same folder
    check_output_path(args.output_file, "noise output file")
    result = make_challenge_set(
        args.input_file,
        args.output_file,
        args.noise,
        seed=args.seed,
        workers=args.workers,
        batch_size=args.batch_size,
        shard=args.shard,
        progress=not args.no_progress,
        force=args.force,
    )
    print(format_summary(result, args.output_file))
    print(json.dumps(result))
    return result


def format_summary(result: dict, output_file: str) -> str:
    """What was written where, in words (the JSON line after it says the same for programs)."""
    reused = result["questions"] - result["noised_now"]
    done = f"{result['questions']} questions ({result['noised_now']} noised now, {reused} already done)"
    if result["complete"]:
        return f"wrote {result['output']}: {done}"
    return (f"wrote {result['output']}: this shard's {done}; {output_file} is written by the run that finds "
            "every shard done (or by a run without --shard)")
