"""Stage 2's outcome in one committed file: the fourth lever's pilot (docs/results/e2e_voices.md,
"The fourth lever"), the end-to-end second stage with the CTC loss and its twin without it, each
arm's development F1 and EM after every epoch, read from its training folder, and the protocol's
rule applied at the declared epoch (the lever is taken when the arm with the CTC loss is at least
1 F1 point higher):

    python recipes/e2e_voices/collect_multitask.py runs/e2e_voices/pilot_multitask \
        runs/e2e_voices/pilot_multitask_off -o recipes/e2e_voices/multitask_pilot.json

The first folder is the arm with the CTC loss (`ctc_weight` above 0 in its config.json), the second
its twin (`ctc_weight` 0). A folder that has not finished its declared epoch is a one-line error.
"""
import argparse
import json
import os
import sys

from srcframework.common.files import file_sha256, write_text_atomic

# the protocol's rule: the lever is taken when its development F1 is at least this much higher
TAKEN_FROM = 1.0


def _read(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, json.JSONDecodeError) as err:
        raise SystemExit(f"error: {path}: cannot read it ({err})")


def arm(folder: str) -> dict:
    """One arm's record: its CTC weight, seed, declared epoch and per-epoch development F1/EM (%)."""
    config = _read(os.path.join(folder, "config.json"))
    metrics = _read(os.path.join(folder, "metrics.json"))
    declared = metrics.get("declared_epoch")
    if declared is None:
        raise SystemExit(f"error: {folder}: its metrics.json has no declared_epoch (has the training finished?)")
    epochs = []
    for epoch in range(declared):
        found = _read(os.path.join(folder, f"metrics_epoch_{epoch}.json"))
        epochs.append({"epoch": epoch + 1, "f1": 100 * found["validation_f1"], "em": 100 * found["validation_em"],
                       "training_duration": found["training_duration"]})
    archive = os.path.join(folder, "model.tar.gz")
    return {
        "folder": folder,
        "ctc_weight": config["model"]["question_encoder"].get("ctc_weight", 0.0),
        "seed": config.get("random_seed"),
        "validation_data_path": config.get("validation_data_path"),
        "declared_epoch": declared,
        "epochs": epochs,
        "f1": epochs[-1]["f1"],
        "em": epochs[-1]["em"],
        "archive_sha256": file_sha256(archive) if os.path.isfile(archive) else None,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("multitask", help="the training folder of the arm with the CTC loss")
    parser.add_argument("twin", help="the training folder of its twin without it")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)
    with_ctc, without = arm(args.multitask), arm(args.twin)
    if not with_ctc["ctc_weight"] > 0 or without["ctc_weight"] != 0:
        raise SystemExit(f"error: {args.multitask} must train with a CTC weight above 0 and {args.twin} with none "
                         f"(found {with_ctc['ctc_weight']} and {without['ctc_weight']})")
    if with_ctc["declared_epoch"] != without["declared_epoch"] or with_ctc["seed"] != without["seed"]:
        raise SystemExit("error: the two arms differ in declared epoch or seed; they are not twins")
    difference = with_ctc["f1"] - without["f1"]
    record = {
        "rule": f"the lever is taken when the arm with the CTC loss has a development F1 at least {TAKEN_FROM:g} point "
                "higher at the declared epoch",
        "arms": {"multitask": with_ctc, "multitask_off": without},
        "difference_f1": difference,
        "taken": difference >= TAKEN_FROM,
    }
    write_text_atomic(args.output, json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(json.dumps({"multitask": round(with_ctc["f1"], 2), "multitask_off": round(without["f1"], 2),
                      "difference": round(difference, 2), "taken": record["taken"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
