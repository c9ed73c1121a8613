"""A declared re-analysis of a committed `results.json`: what a study computes today from its pairs'
per-seed figures, added to results that an older version of `allennlp compare` wrote, without
running a model and without changing a figure that is there.

    python -m srcframework.studies.reanalyse RESULTS.json --study STUDY.jsonnet [--reduction 30]

It adds, where the results have the figures for them:

- each declared group of the study (`set_groups`) to each robustness row that lacks it, from the
  pairs' per-seed drops (`set_groups.py`): point figures, seed-level figures and each set's part,
  and each set's part of the generator groups' figures (`by_set`);
- the tests whose unit is the training run (`seed_inference.py`);
- `power`: the retrospective power of the clean-F1 equivalence test at the study's margin, and,
  with `--reduction`, of a difference test of each group's drop difference at that percentage of
  the twin's mean drop (`pilot.py`);
- `reanalysis`: the command, the keys it added, and what it could not compute.

What needs the per-question predictions (the study folder's `pairs/*/predictions.jsonl`), which
`results.json` does not hold, is not computed: the paragraph-bootstrap intervals and randomisation
tests of the declared groups, and the seed and question variance components. A rerun of the study
computes them, and so does `allennlp compare STUDY --reanalyse PAIRS.tar.xz` from a study's
per-question record (`records.py`), where one is kept. The results are written back atomically, in
the layout `allennlp compare` writes.
"""
import argparse
import copy
import json
import sys
from typing import List, Optional

from srcframework.common.errors import InputError
from srcframework.common.files import write_text_atomic
from srcframework.studies.markdown_into import load_results
from srcframework.studies.pilot import add_retrospective_power
from srcframework.studies.seed_inference import add_seed_inference
from srcframework.studies.set_groups import add_by_set, declared_groups, spec_of
from srcframework.studies.study import StudyError, load_study

NOT_COMPUTED = (
    "the paragraph-bootstrap intervals and randomisation tests of the declared groups, and the seed and question "
    "variance components (mixed model): they need the per-question predictions of every pair "
    "(pairs/*/predictions.jsonl in the study's folder), which results.json does not hold; a rerun of the study "
    "computes them"
)


def _unchanged(before, after, where: str = "results") -> None:
    """Every value of `before` is in `after` as it was (the re-analysis only adds keys)."""
    if isinstance(before, dict):
        if not isinstance(after, dict):
            raise AssertionError(f"{where} changed")
        for key, value in before.items():
            if key not in after:
                raise AssertionError(f"{where}.{key} was removed")
            _unchanged(value, after[key], f"{where}.{key}")
    elif isinstance(before, list):
        if not isinstance(after, list) or len(before) != len(after):
            raise AssertionError(f"{where} changed")
        for index, (old, new) in enumerate(zip(before, after)):
            _unchanged(old, new, f"{where}[{index}]")
    elif before != after:
        raise AssertionError(f"{where} changed: {before!r} -> {after!r}")


def reanalyse(results: dict, set_groups: List[dict], reduction: Optional[float] = None, command: str = "") -> dict:
    """The re-analysis of `results` (changed in place and returned); see the module docstring."""
    for row in results.get("robustness") or []:  # what an earlier re-analysis added is computed anew
        if row.get("set_groups") and not any("drop_test" in g for g in row["set_groups"]):
            row.pop("set_groups")
    for key in ("power", "reanalysis"):
        results.pop(key, None)
    original = copy.deepcopy(results)
    declared_groups(results, set_groups)
    add_by_set(results)
    add_seed_inference(results)
    add_retrospective_power(results, reduction=reduction)
    added = ["robustness[].set_groups"] if any(row.get("set_groups") for row in results.get("robustness") or []) else []
    added += ["robustness[].groups[].by_set", "robustness[].groups[].seed_test", "robustness[].clean.seed_test", "robustness[].clean.seed_tost",
              "statistics.seed_inference", "power"]
    results["reanalysis"] = {"command": command, "added": added, "not_computed": NOT_COMPUTED,
                             "set_groups": [dict(spec) for spec in set_groups]}
    _unchanged(original, results)
    return results


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m srcframework.studies.reanalyse",
                                     description="Add the seed-level tests, the study's declared groups of noisy sets "
                                                 "and the retrospective power to a committed results.json.")
    parser.add_argument("results", help="a study's results.json (allennlp compare)")
    parser.add_argument("--study", required=True, help="the study file whose set_groups to add")
    parser.add_argument("--reduction", type=float, default=None,
                        help="also the power of a difference test of each group's drop difference at this percentage "
                             "of the twin's mean drop")
    args = parser.parse_args(argv)
    command = "python -m srcframework.studies.reanalyse " + " ".join(argv if argv is not None else sys.argv[1:])
    try:
        results = load_results(args.results)
        study = load_study(args.study, require_files=False)
        reanalyse(results, [spec_of(group) for group in study.set_groups], args.reduction, command)
    except (InputError, StudyError) as err:
        print(f"error: {' '.join(str(err).split())}", file=sys.stderr)
        return 1
    write_text_atomic(args.results, json.dumps(results, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"{args.results}: re-analysed ({', '.join(results['reanalysis']['added'])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
