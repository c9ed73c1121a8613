"""What robust training bought: each model that names a `twin` (the same model trained on clean
questions) against that twin, over the noisy sets both were run on, from per-question scores.

The noisy sets are split by what made their noise: where the model declares `trained_on_noise`
and the sets their `generator`, into `held_out` (a generator the model was not trained on: the
primary group), `seen` (one it was trained on), `undeclared` (a set without a generator), and
`all` of them; otherwise one group, `all`. For each group, over the questions that every pair of
the group holds (model and twin, on each of its noisy sets and on the clean set each is measured
from), the SAME questions for the estimate, the interval and the test:

- `mean_drop`: the model's F1 on the clean set minus its F1 on a noisy set, averaged over the
  group's sets and questions (and seeds); `twin_mean_drop`: the same for the twin;
- `drop_difference` (the primary figure): `twin_mean_drop - mean_drop`, with its paired bootstrap
  interval and the p of a paired randomisation test of the per-question drop differences, Holm-
  corrected over every group of the table (`p_holm`, `significant`);
- `drop_reduction` (secondary): `100 x drop_difference / twin_mean_drop`, the relative reduction
  NoiseQA reports, with its interval from the same draws; None when the twin does not drop;
- `seeds`, `twin_seeds`: each seed's mean drop, for a model with several archives.

And for the row, `clean`: the model's clean F1 minus the twin's over the questions both answered,
with its interval, and two one-sided tests (TOST) that it lies within `+-margin` F1 points:
`tost_p` (equivalence) and `noninferiority_p` (not worse by `margin` or more), each Holm-corrected
over the table's rows, and the `verdict`: `equivalent`, `not worse` or `inconclusive`.

A row also carries its primary group's figures at the top level (`noisy_sets`, `mean_drop`,
`twin_mean_drop`, `drop_difference`, `drop_reduction`, `clean_f1_change`).

Where the model and its twin have the same number of seeds (two or more), each group and the
clean row also get `variance_components`: a mixed model of the per-question differences of each
seed pair, with the share of the estimate's variance that comes from the training runs and the
share that comes from the test questions (`metrics/mixed_effects.py`). `declared_robustness` adds
the study's `set_groups` to the rows the same way (`set_groups`, one Holm family of their own).
"""
import logging
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from srcframework.common.errors import InputError
from srcframework.metrics.mixed_effects import seed_question_components
from srcframework.metrics.statistics import LEVEL, Resampler, family_plan, holm, percentile_interval, tost
from srcframework.studies.question_scores import PairScores
from srcframework.studies.significance import correct

logger = logging.getLogger(__name__)

GROUPS = ("held_out", "seen", "undeclared", "all")
Scores = Dict[Tuple[str, str], PairScores]


def noise_groups(model: dict, noisy: List[str], generators: Dict[str, Optional[str]]) -> List[Tuple[str, List[str]]]:
    """`(group, sets)` of a model's noisy sets, the primary group first (see the module docstring)."""
    trained = model.get("trained_on_noise")
    if trained is None:
        return [("all", noisy)]
    held = [s for s in noisy if generators.get(s) is not None and generators[s] not in trained]
    seen = [s for s in noisy if generators.get(s) is not None and generators[s] in trained]
    undeclared = [s for s in noisy if generators.get(s) is None]
    groups = [(name, sets) for name, sets in zip(GROUPS, (held, seen, undeclared)) if sets]
    return groups + [("all", noisy)] if len(groups) > 1 else groups


def _noisy_sets(results: dict, model: str, twin: str) -> List[str]:
    """The sets with a clean reference that both the model and the twin ran on."""
    twin_sets = {p["set"] for p in results["pairs"] if p["model"] == twin and p.get("reference")}
    return [p["set"] for p in results["pairs"] if p["model"] == model and p.get("reference") and p["set"] in twin_sets]


def _drops(scores: Scores, name: str, sets: List[str], references: Dict[str, str], ids: List[str]) -> np.ndarray:
    """`seeds x questions`: clean F1 minus noisy F1 of each question, averaged over `sets`."""
    def f1(test_set: str) -> np.ndarray:
        pair = scores[(name, test_set)]
        return pair.f1_by_seed[:, pair.positions(ids)]

    return np.mean([f1(references[s]) - f1(s) for s in sets], axis=0)


def reduction_interval(difference: np.ndarray, twin_drop: np.ndarray, confidence: float) -> Tuple[Optional[float], Optional[float]]:
    """The percentile interval of `100 x difference / twin_drop` over the resamples. A resample in
    which the twin's mean drop is not positive leaves no reduction to claim and counts as minus
    infinity; both ends are None when so many do that the lower end would be unbounded."""
    defined = twin_drop > 0
    alpha = (1.0 - confidence) / 2.0
    if np.count_nonzero(~defined) > np.floor(alpha * (len(twin_drop) - 1)):
        return None, None
    reduction = 100.0 * difference[defined] / twin_drop[defined]
    # below the lower quantile's position, so any value under the smallest defined one gives the same ends
    ratios = np.concatenate([np.full(np.count_nonzero(~defined), reduction.min()), reduction])
    return percentile_interval(ratios, confidence)


def components(differences: np.ndarray, ids: Sequence[str], resampler: Resampler) -> Optional[dict]:
    """The seed and question variance components of `seeds x questions` seed-paired differences
    (None for one seed, or where the model cannot be fitted: logged)."""
    if differences.shape[0] < 2:
        return None
    clusters = None if resampler.clusters is None else [resampler.clusters.get(qid, "\0" + qid) for qid in ids]
    try:
        return seed_question_components(differences, clusters, resampler.confidence)
    except (InputError, ValueError, np.linalg.LinAlgError) as err:
        logger.warning("no variance components: %s", " ".join(str(err).split()))
        return None


def _group(scores: Scores, model: str, twin: str, name: str, sets: List[str], references: Dict[str, str],
           resampler: Resampler, plan: Tuple[str, int]) -> dict:
    group: dict = {"group": name, "noisy_sets": sets, "questions": 0}
    keys = {(m, s) for m in (model, twin) for n in sets for s in (n, references[n])}
    ids = sorted(set.intersection(*(set(scores[key].ids) for key in keys))) if all(k in scores for k in keys) else []
    if not ids:
        group.update(mean_drop=None, twin_mean_drop=None, drop_difference=None, drop_reduction=None)
        return group
    mine, theirs = _drops(scores, model, sets, references, ids), _drops(scores, twin, sets, references, ids)
    test = resampler.test(ids, theirs, mine, twin, model, *plan)
    draws = test.pop("draws")
    twin_drop = float(theirs.mean())
    low, high = reduction_interval(draws, resampler.means(ids, theirs, twin), resampler.confidence)
    group.update(
        questions=len(ids),
        mean_drop=float(mine.mean()),
        twin_mean_drop=twin_drop,
        drop_difference=test["difference"],
        drop_test=test,
        drop_reduction=100.0 * test["difference"] / twin_drop if twin_drop > 0 else None,
        drop_reduction_low=low,
        drop_reduction_high=high,
    )
    if mine.shape[0] > 1:
        group["seeds"] = [{"seed": i, "mean_drop": float(row.mean())} for i, row in enumerate(mine)]
    if theirs.shape[0] > 1:
        group["twin_seeds"] = [{"seed": i, "mean_drop": float(row.mean())} for i, row in enumerate(theirs)]
    if mine.shape[0] == theirs.shape[0]:
        found = components(theirs - mine, ids, resampler)
        if found:
            group["variance_components"] = found
    return group


def _clean(scores: Scores, model: str, twin: str, clean: Optional[str], resampler: Resampler, margin: float) -> Optional[dict]:
    """The model's clean F1 against the twin's, with the equivalence tests (uncorrected)."""
    if clean is None or (model, clean) not in scores or (twin, clean) not in scores:
        return None
    mine, theirs = scores[(model, clean)], scores[(twin, clean)]
    ids = [qid for qid in mine.ids if qid in set(theirs.ids)]
    if not ids:
        return None
    test = resampler.test(ids, mine.f1_by_seed[:, mine.positions(ids)], theirs.f1_by_seed[:, theirs.positions(ids)],
                          model, twin, "normal")
    equivalence = tost(test.pop("draws"), margin)
    found = {"set": clean, "questions": len(ids), "change": test["difference"], "low": test["low"], "high": test["high"],
             "margin": margin, "tost_p": equivalence["p"], "noninferiority_p": equivalence["p_lower"]}
    if mine.seeds > 1:
        found["seeds"] = [{"seed": i, "f1": float(row[mine.positions(ids)].mean())} for i, row in enumerate(mine.f1_by_seed)]
    if theirs.seeds > 1:
        found["twin_seeds"] = [{"seed": i, "f1": float(row[theirs.positions(ids)].mean())}
                               for i, row in enumerate(theirs.f1_by_seed)]
    if mine.seeds == theirs.seeds:
        parts = components(mine.f1_by_seed[:, mine.positions(ids)] - theirs.f1_by_seed[:, theirs.positions(ids)], ids,
                           resampler)
        if parts:
            found["variance_components"] = parts
    return found


def _verdict(clean: dict, level: float) -> str:
    if clean["tost_p_holm"] < level:
        return "equivalent"
    if clean["noninferiority_p_holm"] < level:
        return "not worse"
    return "inconclusive"


def robustness(results: dict, scores: Scores, resampler: Resampler, margin: float = 1.5, permutations: Optional[int] = None,
               level: float = LEVEL) -> Tuple[List[dict], dict]:
    """
    One row per model with a twin and noisy sets both ran on, in model order ([] when no model
    names a twin), and the plan of the table's family of drop-difference tests.

    # Parameters

    results : `dict`
        The study's results: `models` (with `twin`, `trained_on_noise`), `test_sets` (with
        `generator`) and `pairs` (with `reference`).
    scores : `Dict[Tuple[str, str], PairScores]`
    resampler : `Resampler`
    margin : `float`, optional (default = `1.5`)
        The equivalence margin of the clean F1 change, in F1 points.
    permutations : `int`, optional
        Randomisation rounds (at least); default the resampler's.
    """
    generators = {s["name"]: s.get("generator") for s in results["test_sets"]}
    references = {(p["model"], p["set"]): p["reference"] for p in results["pairs"]}
    planned = []
    for model in results["models"]:
        twin = model.get("twin")
        noisy = _noisy_sets(results, model["name"], twin) if twin else []
        if noisy:
            planned.append((model, twin, noise_groups(model, noisy, generators)))
    plan = family_plan(sum(len(groups) for _, _, groups in planned), permutations or resampler.permutations, level)
    rows = []
    for model, twin, groups in planned:
        name = model["name"]
        mine = {s: references[(name, s)] for _, sets in groups for s in sets}
        found = [_group(scores, name, twin, group, sets, mine, resampler, plan) for group, sets in groups]
        cleans = set(mine.values())
        clean = _clean(scores, name, twin, cleans.pop() if len(cleans) == 1 else None, resampler, margin)
        primary = found[0]
        rows.append({
            "model": name, "twin": twin, "primary": primary["group"], "groups": found, "clean": clean,
            "noisy_sets": primary["noisy_sets"], "mean_drop": primary["mean_drop"],
            "twin_mean_drop": primary["twin_mean_drop"], "drop_difference": primary["drop_difference"],
            "drop_reduction": primary["drop_reduction"], "clean_f1_change": clean["change"] if clean else None,
        })
    correct([group.get("drop_test") for row in rows for group in row["groups"]], level)
    cleans = [row["clean"] for row in rows]
    for key in ("tost_p", "noninferiority_p"):
        for clean, p in zip(cleans, holm([c[key] if c else None for c in cleans])):
            if clean:
                clean[f"{key}_holm"] = p
    for clean in cleans:
        if clean:
            clean["verdict"] = _verdict(clean, level)
    method, rounds = plan
    return rows, {"tests": sum(len(row["groups"]) for row in rows), "method": method, "rounds": rounds}


def declared_robustness(results: dict, scores: Scores, resampler: Resampler, groups: Sequence[dict],
                        permutations: Optional[int] = None, level: float = LEVEL) -> Optional[dict]:
    """
    Add `set_groups` to each robustness row of `results` (after `robustness`): the row's model
    against its twin over each declared group (`{"name", "sets", "label", "declared"}`) whose sets
    both ran on, with the figures, interval and test of a generator group. The groups' tests form
    one Holm family; returns its plan (None without any group).
    """
    references = {(p["model"], p["set"]): p["reference"] for p in results["pairs"]}
    planned = []
    for row in results.get("robustness", []):
        noisy = set(_noisy_sets(results, row["model"], row["twin"]))
        chosen = [spec for spec in groups if spec["sets"] and set(spec["sets"]) <= noisy]
        if chosen:
            planned.append((row, chosen))
    count = sum(len(chosen) for _, chosen in planned)
    if not count:
        return None
    plan = family_plan(count, permutations or resampler.permutations, level)
    tests = []
    for row, chosen in planned:
        mine = {s: references[(row["model"], s)] for spec in chosen for s in spec["sets"]}
        built = []
        for spec in chosen:
            group = _group(scores, row["model"], row["twin"], spec["name"], list(spec["sets"]), mine, resampler, plan)
            group.update(label=spec.get("label") or spec["name"], declared=spec.get("declared"))
            built.append(group)
            tests.append(group.get("drop_test"))
        row["set_groups"] = built
    correct(tests, level)
    method, rounds = plan
    return {"tests": count, "method": method, "rounds": rounds}
