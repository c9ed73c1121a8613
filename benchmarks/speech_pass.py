"""A real pass of the speech encoder's CTC pretraining over its training recordings, timed.

Runs `allennlp train recipes/e2e_cpu/speecht5_ctc_pretrain.jsonnet` as it is (the reader that
decodes and perturbs each recording with SoX, the bucketed batches of 16, the model, Adam and the
noam schedule) for `--epochs` of its epochs, with `--threads` torch threads in place of the
config's one-thread callback, no validation and no archive: the config's epochs are a third of
the recordings each (519 batches of 16), so the default 3 epochs are one pass over the 24,924
training recordings (24,912 of them: the last 12 would start a 1,558th batch). Nothing is
projected: it prints the training's own wall time (AllenNLP's `training_duration`), the wall time
of the whole command (start-up and vocabulary included), utterances/s, and the pass against the
15-minute limit.

    .venv/bin/python benchmarks/speech_pass.py [--threads 2] [--epochs 3] [--output /tmp/speech_pass]

It reads the spoken training folder the e2e_cpu recipe makes (`allennlp recipe run e2e_cpu speech`:
runs/spoken_ctc/train9); `--train-data`, `--squad` and `--batches-per-epoch` point it at another
folder and size (the test: a few synthesized recordings, 2 batches).
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "recipes" / "e2e_cpu" / "speecht5_ctc_pretrain.jsonnet"
LIMIT_MINUTES = 15.0


def overrides(args) -> dict:
    """The config's changes for a timed pass (dotted keys: the rest of each block stays): epochs,
    threads, no validation, one checkpoint kept."""
    changes = {
        "trainer.num_epochs": args.epochs,
        "trainer.patience": None,
        "trainer.checkpointer": {"keep_most_recent_by_count": 1},
        "trainer.callbacks": [{"type": "reader_epoch"}, {"type": "torch_threads", "threads": args.threads}],
        "validation_data_path": None,
    }
    if args.train_data:
        changes["train_data_path"] = args.train_data
    if args.squad:
        changes["dataset_reader.squad_file"] = args.squad
    if args.batches_per_epoch:
        changes["data_loader.batches_per_epoch"] = args.batches_per_epoch
    return changes


def load_config(path: str) -> dict:
    """The config as AllenNLP reads it (its data locations' defaults from srcframework's
    config_defaults, loaded by path: importing srcframework would load torch and AllenNLP)."""
    import importlib.util

    import _jsonnet

    spec = importlib.util.spec_from_file_location("config_defaults", ROOT / "srcframework" / "config_defaults.py")
    defaults = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(defaults)
    return json.loads(_jsonnet.evaluate_file(path, ext_vars=defaults.export()))


def seconds_of(duration: str) -> float:
    """AllenNLP's `H:MM:SS[.ffffff]` as seconds."""
    hours, minutes, seconds = duration.split(":")
    return 3600 * int(hours) + 60 * int(minutes) + float(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=str(CONFIG))
    parser.add_argument("--threads", type=int, default=2, help="torch threads of the training")
    parser.add_argument("--epochs", type=int, default=3, help="the config's epochs (3: one pass)")
    parser.add_argument("--batches-per-epoch", type=int, help="in place of the config's 519")
    parser.add_argument("--train-data", help="in place of the config's training fid2qid file")
    parser.add_argument("--squad", help="in place of the reader's SQuAD file")
    parser.add_argument("--output", default="/tmp/speech_pass", help="the serialization folder (replaced)")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()

    config = load_config(args.config)
    batch_size = config["data_loader"]["batch_sampler"]["batch_size"]
    batches = args.epochs * (args.batches_per_epoch or config["data_loader"]["batches_per_epoch"])
    train_file = ROOT / (args.train_data or config["train_data_path"])
    if not train_file.is_file():
        raise SystemExit(f"speech_pass: no training file {train_file}: make the spoken folders with "
                         "`allennlp recipe run e2e_cpu speech`, or give --train-data")
    recordings = sum(1 for line in train_file.read_text(encoding="utf-8").splitlines() if line.strip())
    # a file smaller than a batch gives each epoch's batch all of it
    utterances = min(batches * batch_size, recordings * args.epochs)
    command = [str(Path(sys.executable).parent / "allennlp"), "train", args.config, "-s", args.output, "-f",
               "-o", json.dumps(overrides(args))]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    began = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"speech_pass: allennlp train failed (exit {done.returncode}): {done.stderr.strip().splitlines()[-1]}")
    metrics = json.loads((Path(args.output) / "metrics.json").read_text())
    training = seconds_of(metrics["training_duration"])
    figures = {
        "epochs": args.epochs, "batches": batches, "utterances": utterances, "recordings": recordings,
        "threads": args.threads,
        "training_seconds": round(training, 1), "command_seconds": round(wall, 1),
        "utterances_per_s": round(utterances / training, 2), "limit_minutes": LIMIT_MINUTES,
        "training_over_limit": round(training / 60 / LIMIT_MINUTES, 3),
    }
    print(f"pass: {args.epochs} epochs of {batches // args.epochs} batches of {batch_size}: {utterances} utterances "
          f"read, of the {recordings} recordings in {train_file.name}; {args.threads} torch threads, no validation")
    print("| measured | minutes | utterances/s | / 15-minute limit |\n|---|---:|---:|---:|")
    print(f"| training (AllenNLP's training_duration) | {training / 60:.1f} | {utterances / training:.1f} | "
          f"{figures['training_over_limit']:.2f} |")
    print(f"| the whole command (start-up included) | {wall / 60:.1f} | {utterances / wall:.1f} | "
          f"{wall / 60 / LIMIT_MINUTES:.2f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
