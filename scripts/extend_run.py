"""Continue a finished training run for more epochs, keeping its optimizer state, in a new folder:

    python scripts/extend_run.py runs/bidaf_cpu_scale training_configs/bidaf_cpu_scale_long.jsonnet \
        runs/bidaf_cpu_scale_long
    allennlp train training_configs/bidaf_cpu_scale_long.jsonnet -s runs/bidaf_cpu_scale_long --recover

AllenNLP's `--recover` resumes from the last checkpoint (weights and optimizer state) only when the
config equals the one saved in the folder. This copies the run into NEW_RUN and writes CONFIG
there as the saved config, after checking that CONFIG differs from the run's own config only in
`trainer.num_epochs` (which must be larger than the epochs already done) and
`trainer.checkpointer`, and in keys named with `--allow` (for a change that does not alter
training, such as weights rewritten in another scale). The source run is left as it is.

`allennlp train` builds the vocabulary anew from the training data, even with `--recover`. When an
allowed change alters what the training reader reads (a `dataset_reader` or `train_data_path` key),
that vocabulary may not fit the saved weights; give CONFIG the run's own, with
`"vocabulary": {"type": "from_files", "directory": "RUN/vocabulary"}` (and `--allow vocabulary`).
The script warns when it is missing.
"""
import argparse
import json
import shutil
import sys
from pathlib import Path

ALLOWED = ("trainer.num_epochs", "trainer.checkpointer")


def completed_epochs(run: Path) -> int:
    """How many epochs the run finished (the highest `model_state_e<N>_b0.th`)."""
    epochs = [int(p.name[len("model_state_e") : -len("_b0.th")]) for p in run.glob("model_state_e*_b0.th")]
    if not epochs:
        raise SystemExit(f"{run}: no end-of-epoch checkpoint (model_state_e<N>_b0.th) to continue from")
    return max(epochs)


def config_differences(old: dict, new: dict, allow=()) -> list:
    """Flattened keys whose values differ between two configs, outside the allowed ones."""
    from allennlp.common import Params

    flat_old, flat_new = Params(old).as_flat_dict(), Params(new).as_flat_dict()
    keys = set(flat_old) | set(flat_new)
    return sorted(
        k for k in keys if flat_old.get(k) != flat_new.get(k) and not any(k == a or k.startswith(a + ".") for a in ALLOWED + tuple(allow))
    )


def rebuilt_vocabulary_warning(old: dict, new: dict, run: str) -> str:
    """A warning when the training data changes but the vocabulary is rebuilt from it, else ""."""
    data_keys = ("dataset_reader", "train_data_path")
    changed = [k for k in config_differences(old, new, ALLOWED + ("vocabulary",)) if k.split(".")[0] in data_keys]
    if not changed or new.get("vocabulary", {}).get("type") == "from_files":
        return ""
    return (f"warning: {', '.join(changed)} changed, and the vocabulary will be built anew from the new "
            f"training data, so it may not fit the saved weights; give the config "
            f'"vocabulary": {{"type": "from_files", "directory": "{run}/vocabulary"}}')


def extend(run: str, config: str, new_run: str, overrides: str = "", allow=()) -> int:
    """Copy `run` to `new_run` with `config` as its saved config; returns the new epoch count."""
    import srcframework  # noqa: F401  (sets the configs' external variables' defaults)
    from allennlp.common import Params

    source, target = Path(run), Path(new_run)
    if not (source / "config.json").is_file():
        raise SystemExit(f"{run}: not a training run's folder (no config.json)")
    if target.exists() and any(target.iterdir()):
        raise SystemExit(f"{new_run}: exists and is not empty")
    new_params = Params.from_file(config, overrides).as_dict(quiet=True)
    old_params = json.loads((source / "config.json").read_text())
    differing = config_differences(old_params, new_params, allow)
    if differing:
        raise SystemExit(f"{config} differs from {run}'s config beyond the epoch count: {', '.join(differing)}")
    done = completed_epochs(source)
    epochs = new_params.get("trainer", {}).get("num_epochs")
    if not isinstance(epochs, int) or epochs <= done:
        raise SystemExit(f"{config}: trainer.num_epochs is {epochs}; {run} already finished {done} epochs")
    warning = rebuilt_vocabulary_warning(old_params, new_params, run)
    if warning:
        print(warning, file=sys.stderr)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("model.tar.gz"), dirs_exist_ok=True)
    (target / "config.json").write_text(json.dumps(new_params, indent=4))
    return epochs


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="the finished run's serialization folder")
    parser.add_argument("config", help="the config to continue with (more epochs)")
    parser.add_argument("new_run", help="the new serialization folder (absent or empty)")
    parser.add_argument("-o", "--overrides", default="", help="JSON overrides, as for allennlp train")
    parser.add_argument("--allow", action="append", default=[], metavar="KEY",
                        help="a config key (dotted) that may differ, e.g. dataset_reader.noisy_copy_weights")
    args = parser.parse_args(argv)
    epochs = extend(args.run, args.config, args.new_run, args.overrides, args.allow)
    print(f"{args.new_run}: continues {args.run} to {epochs} epochs; now run")
    print(f"  allennlp train {args.config} -s {args.new_run} --recover")


if __name__ == "__main__":
    sys.exit(main())
