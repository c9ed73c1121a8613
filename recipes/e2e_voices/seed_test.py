"""Stage 3's seed-level test (docs/results/e2e_voices.md, "Power calculation"): each seed's F1 of the
end-to-end model on the held-out voices minus cascade C's F1 on the same recordings (C does not vary
with the end-to-end seed), a two-sided one-sample t-test over the seeds at 0.05, with its 95%
interval; the unit it resamples is the training seed. Read from the analysis's results.json:

    python recipes/e2e_voices/seed_test.py runs/e2e_voices/analysis/results.json \
        -o recipes/e2e_voices/seed_test.json

`--group seen` gives the same figures on the training voices (descriptive: the protocol plans the
test on the held-out voices only). A results file without the two pairs, or with fewer than two
seeds of the end-to-end model, is a one-line error.
"""
import argparse
import json
import math
import sys
from typing import List

from srcframework.common.errors import InputError
from srcframework.common.files import read_json, write_text_atomic


def _pair(results: dict, path: str, model: str, test_set: str) -> dict:
    for pair in results.get("pairs", []):
        if pair.get("model") == model and pair.get("set") == test_set:
            return pair
    raise SystemExit(f"error: {path}: no pair of model {model!r} on set {test_set!r} (is it the stage 3 analysis's results.json?)")


def one_sample_t(differences: List[float]) -> dict:
    """Mean, SD, t, two-sided p and the 95% interval of `differences` against 0 (n - 1 df)."""
    from scipy import stats

    n = len(differences)
    mean = sum(differences) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1))
    if sd == 0:  # scipy's t is undefined here
        t, p = (math.copysign(math.inf, mean), 0.0) if mean else (0.0, 1.0)
        return {"seeds": n, "mean": mean, "sd": sd, "t": t, "df": n - 1, "p": p, "low": mean, "high": mean}
    test = stats.ttest_1samp(differences, 0.0)
    interval = test.confidence_interval(0.95)
    return {"seeds": n, "mean": mean, "sd": sd, "t": float(test.statistic), "df": n - 1, "p": float(test.pvalue),
            "low": float(interval.low), "high": float(interval.high)}


def seed_test(results: dict, path: str, group: str = "held_out") -> dict:
    e2e = _pair(results, path, "e2e", f"spoken_{group}")
    cascade = _pair(results, path, "bidaf", f"cascade_c_{group}")
    seeds = e2e.get("seeds") or []
    if len(seeds) < 2:
        raise SystemExit(f"error: {path}: the end-to-end model has {len(seeds)} seed(s) on spoken_{group}; the test needs at least 2")
    differences = [seed["f1"] - cascade["f1"] for seed in seeds]
    return {
        "group": group,
        "planned": group == "held_out",
        "cascade_c_f1": cascade["f1"],
        "e2e_f1_by_seed": [{"archive": seed["archive"], "f1": seed["f1"]} for seed in seeds],
        "differences": differences,
        "test": one_sample_t(differences),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="the analysis's results.json")
    parser.add_argument("--group", choices=["held_out", "seen"], default="held_out")
    parser.add_argument("-o", "--output", help="write the record here as JSON")
    args = parser.parse_args(argv)
    try:
        results = read_json(args.results)
    except InputError as err:
        raise SystemExit(f"error: {err}")
    record = seed_test(results, args.results, args.group)
    text = json.dumps(record, indent=1) + "\n"
    if args.output:
        write_text_atomic(args.output, text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
