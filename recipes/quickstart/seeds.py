"""The quickstart's run-to-run spread: train training_configs/quickstart.jsonnet with several seeds
and print dev EM/F1 for each, with mean and sample standard deviation.

    .venv/bin/python recipes/quickstart/seeds.py [--seeds 13 14 15] [--output-dir runs/quickstart_seeds]

Each run sets AllenNLP's `random_seed`, `numpy_seed` and `pytorch_seed` to the seed (and the
trainer's data order follows them). A seed whose run has finished (its `metrics.json` exists) is
not trained again.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, nargs="+", default=[13, 14, 15])
    parser.add_argument("--output-dir", default="runs/quickstart_seeds")
    args = parser.parse_args()
    allennlp = str(Path(sys.executable).parent / "allennlp")
    rows = []
    for seed in args.seeds:
        folder = Path(args.output_dir) / f"seed_{seed}"
        if not (folder / "metrics.json").exists():
            overrides = json.dumps({"random_seed": seed, "numpy_seed": seed, "pytorch_seed": seed})
            subprocess.run([allennlp, "train", "training_configs/quickstart.jsonnet", "-s", str(folder), "-f",
                            "-o", overrides], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        metrics = json.loads((folder / "metrics.json").read_text())
        rows.append((seed, 100 * metrics["best_validation_em"], 100 * metrics["best_validation_f1"]))
    print("| seed | dev EM | dev F1 |\n|---|---:|---:|")
    for seed, em, f1 in rows:
        print(f"| {seed} | {em:.1f} | {f1:.1f} |")
    ems, f1s = [r[1] for r in rows], [r[2] for r in rows]
    spread = lambda values: statistics.stdev(values) if len(values) > 1 else 0.0  # noqa: E731
    print(f"| mean ± sd | {statistics.mean(ems):.1f} ± {spread(ems):.1f} | {statistics.mean(f1s):.1f} ± {spread(f1s):.1f} |")


if __name__ == "__main__":
    main()
