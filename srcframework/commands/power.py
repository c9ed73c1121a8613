"""`allennlp power PILOT/results.json (--margin M | --effect E)`: how many seeds per arm a comparison
of a robust model with its twin needs, from a pilot study's per-seed figures, and what a planned
number of seeds can detect."""
import argparse
import json

from allennlp.commands import Subcommand

from srcframework.metrics.statistics import LEVEL
from srcframework.studies.pilot import OUTCOMES, pilot_figures, power_entry

DESIGN_WORDS = {"independent": "independent arms", "paired": "seed-paired arms"}
UNITS = {"independent": "seeds per arm", "paired": "seed pairs"}


@Subcommand.register("power")
class Power(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = (
            "Seeds per arm needed for a power, from a pilot study's per-seed figures (its results.json, "
            "allennlp compare with several archives a model): an equivalence test (TOST) within --margin of "
            "the clean-F1 change, or a two-sided t-test of a true difference of --effect (F1 points) in the "
            "clean-F1 change or in a group's drop difference. Answers for independent arms (the pooled "
            "between-seed SD within an arm) and, where the pilot's seeds pair up, for seed pairs (the SD of "
            "the seed-paired differences); then what --seeds seeds per arm can detect."
        )
        subparser = parser.add_parser(self.name, description=description,
                                      help="Seeds needed for a power, from a pilot's per-seed figures.")
        subparser.add_argument("pilot", help="the pilot study's results.json (per-seed figures)")
        what = subparser.add_mutually_exclusive_group(required=True)
        what.add_argument("--margin", type=float, help="equivalence margin, F1 points (TOST at a true difference of 0)")
        what.add_argument("--effect", type=float, help="true difference to find, F1 points (two-sided t-test)")
        subparser.add_argument("--outcome", choices=OUTCOMES, default="clean_f1",
                               help="clean_f1: the model's clean F1 minus the twin's; drop_difference: the twin's "
                                    "mean drop minus the model's over --group (default: clean_f1)")
        subparser.add_argument("--model", help="the robust model (default: the pilot's first with a twin)")
        subparser.add_argument("--group", help="the group of noisy sets of a drop_difference (default: the primary one)")
        subparser.add_argument("--power", type=float, default=0.8, help="the power wanted (default: 0.8)")
        subparser.add_argument("--alpha", type=float, default=LEVEL, help=f"the level of each test (default: {LEVEL:g})")
        subparser.add_argument("--seeds", type=int, help="the planned seeds per arm (default: the pilot's)")
        subparser.add_argument("--json", action="store_true", help="print the answer as JSON")
        subparser.set_defaults(func=run)
        return subparser


def run(args: argparse.Namespace) -> None:
    from srcframework.studies.markdown_into import load_results  # not at import: `python -m` runs that module

    results = load_results(args.pilot)
    figures = pilot_figures(results, args.outcome, args.model, args.group)
    entry = power_entry(figures, margin=args.margin, effect=args.effect, power=args.power, alpha=args.alpha,
                        seeds=args.seeds)
    if args.json:
        print(json.dumps(entry, indent=1, sort_keys=True))
        return
    print(text(entry, args.pilot))


def text(entry: dict, pilot: str) -> str:
    """The answer in words, a line a design."""
    outcome = "clean F1 change" if entry["outcome"] == "clean_f1" else f"drop difference over {entry['group']}"
    seeds = " and ".join(str(n) for n in entry["pilot_seeds"])
    lines = [
        f"pilot: {pilot}: {entry['model']} against {entry['twin']} ({seeds} seeds), {outcome}",
        f"between-seed SD: {entry['sd_model']:.2f} ({entry['model']}), {entry['sd_twin']:.2f} ({entry['twin']})",
    ]
    if entry["test"] == "equivalence":
        test = f"equivalence within +-{entry['margin']:g} (TOST at a true difference of 0)"
        detects = "shows equivalence only within +-{:.2f}"
    else:
        test = f"a true difference of {entry['effect']:g} (two-sided t-test)"
        detects = "finds a true difference of {:.2f} or more"
    lines.append(f"{test}, alpha {entry['alpha']:g}, power {entry['power']:g}:")
    for design, found in entry["designs"].items():
        lines.append(f"  {DESIGN_WORDS[design]} (SD {found['sd']:.2f}): {found['seeds_needed']} {UNITS[design]} needed; "
                     f"with {entry['planned_seeds']}: power {found['planned_power']:.2f}, "
                     + detects.format(found["planned_detects"]) + f" at power {entry['power']:g}")
        spread = found.get("seeds_needed_interval")
        if spread:
            lines.append(f"    the SD's {spread['confidence']:.0%} interval [{spread['sd_low']:.2f}, {spread['sd_high']:.2f}] "
                         f"(chi-square, {spread['df']} degrees of freedom) gives {seeds_range(spread)} {UNITS[design]} needed")
    return "\n".join(lines)


def seeds_range(spread: dict) -> str:
    """`[low, high]` seeds needed at the ends of the SD's interval ("more than 100000" where unbounded)."""
    from srcframework.metrics.power import MAX_SEEDS

    high = spread["high"] if spread["high"] is not None else f"more than {MAX_SEEDS}"
    return f"[{spread['low']}, {high}]"
