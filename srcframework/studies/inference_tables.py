"""The tables of a study's inference over training runs, its declared groups of noisy sets, its
power and its validation curves, from the cells of `cells.py` (`tables.results_tables` lists them
after the robustness table):

- `seed_tests`: each robust model against its twin, one figure per seed pair: the drop difference
  of each generator group and the clean-F1 change, with the paired t interval over seed pairs, p and Holm p,
  and the paired TOST of the clean-F1 change;
- `variance_components`: the mixed model of the per-question differences: the interval that new
  training runs and new test questions together give, and how much of it each contributes;
- `set_groups`: the study's declared groups of noisy sets (a correction, say), with their figures,
  paragraph-bootstrap interval where computed, and seed-level interval;
- `drop_by_set`: each noisy set's drop difference and its share of its generator group's sum;
- `power`: seeds per arm needed for a power, and what the planned seeds can detect;
- `validation_curves`: each archive's validation metric by epoch.

Every interval's note says what it is over: paragraphs (the cluster bootstrap), training runs (seed
pairs, the questions held fixed), or both (the mixed model).
"""
from typing import Any, List, Optional

from srcframework.metrics.statistics import LEVEL
from srcframework.studies.captions import level_of
from srcframework.studies.cells import GROUP_LABELS, Estimate, PValue, Table, seed_label, seed_notes

SEED_UNIT = ("Interval over the training runs: each seed pair (seed k of the model and seed k of its twin, "
             "trained with the same SEED) gives one figure, and the interval is Student's t over those figures "
             "(seed pairs - 1 degrees of freedom). The test questions are the same for every seed and are held "
             "fixed: the interval says what another set of training runs would show on these questions.")


def _group_label(group: dict, primary: Optional[str] = None) -> str:
    if group.get("label"):
        return f"{group['label']}: {', '.join(group['noisy_sets'])}"
    name = GROUP_LABELS.get(group["group"], group["group"])
    return f"{name}{' (primary)' if group['group'] == primary else ''}: {', '.join(group['noisy_sets'])}"


def _seed_cells(test: Optional[dict]) -> List[Any]:
    if not test:
        return [None] * 5
    return [test["seeds"], " / ".join(f"{x:.1f}" for x in test["differences"]),
            Estimate(test["difference"], test["low"], test["high"]), PValue(test["p"]),
            PValue(test["p_holm"]) if test.get("p_holm") is not None else None]


def seed_tests_table(results: dict) -> Table:
    rows = []
    for row in results.get("robustness", []):
        for group in row.get("groups") or []:
            if group.get("seed_test"):
                outcome = "drop difference, " + _group_label(group, row.get("primary"))
                rows.append([row["model"], row["twin"], outcome] + _seed_cells(group["seed_test"]) + [None, None])
        clean = row.get("clean") or {}
        if clean.get("seed_test"):
            tost = clean.get("seed_tost") or {}
            rows.append([row["model"], row["twin"], f"clean F1 change ({clean['set']})"] + _seed_cells(clean["seed_test"])
                        + [PValue(tost["p"]) if tost else None,
                           PValue(tost["p_holm"]) if tost.get("p_holm") is not None else None])
    margin = (results.get("statistics") or {}).get("equivalence_margin", 1.5)
    level = level_of(results)
    header = ["Model", "Clean-trained twin", "Outcome", "Seed pairs", "By seed pair", "Mean [95% interval over seed pairs]",
              "p", "p (Holm)", "TOST p", "TOST p (Holm)"]
    notes = [
        SEED_UNIT,
        "Drop difference: the twin's mean ΔF1 over the group minus the model's (positive: the model trained on noise drops "
        "less); clean F1 change: the model's clean F1 minus the twin's. p: two-sided paired t-test over the seed "
        "pairs; p (Holm): Holm-corrected over this table's drop differences, and apart over its clean-F1 rows. The "
        "declared groups of noisy sets have their seed-level tests in their own table.",
        f"TOST p: two one-sided paired t-tests over the seed pairs that the clean-F1 change lies within +-{margin:g} "
        f"F1 points (equivalence shown when TOST p < {level:g}: the {round(100 * (1 - 2 * level))}% interval lies inside "
        "the margins).",
    ]
    return Table("seed_tests", "Inference over training runs (seed pairs)", header, rows, 3, None, notes)


def _sd(variance: Optional[float]) -> Optional[float]:
    return None if variance is None else variance ** 0.5


def variance_components_table(results: dict) -> Table:
    rows = []
    for row in results.get("robustness", []):
        entries = [("drop difference, " + _group_label(group, row.get("primary")), group)
                   for key in ("groups", "set_groups") for group in row.get(key) or []]
        if row.get("clean"):
            entries.append((f"clean F1 change ({row['clean']['set']})", row["clean"]))
        for outcome, found in entries:
            parts = found.get("variance_components")
            if not parts:
                continue
            components = parts["components"]
            outcome += "" if parts.get("converged", True) else " (the fit did not converge)"
            rows.append([
                row["model"], row["twin"], outcome, parts["seeds"], parts["questions"], parts["paragraphs"],
                Estimate(parts["estimate"], parts["low"], parts["high"]), parts["df"],
                _sd(components["seed"]), _sd(components["paragraph"]), _sd(components["question"]),
                _sd(components["seed_question"]),
                None if parts["share_seeds"] is None else 100.0 * parts["share_seeds"],
                None if parts["share_questions"] is None else 100.0 * parts["share_questions"],
            ])
    header = ["Model", "Clean-trained twin", "Outcome", "Seed pairs", "Questions", "Paragraphs",
              "Mean [95% interval over runs and questions]", "df", "SD seed", "SD paragraph", "SD question",
              "SD seed x question", "Share: training runs %", "Share: test questions %"]
    notes = [
        "A linear mixed model (statsmodels MixedLM, REML) of each seed pair's per-question differences: a fixed "
        "effect per seed, a random intercept per paragraph, a random effect per question within its paragraph, and "
        "the seed-by-question residual; the seed variance by moments (the spread of the seed effects less the "
        "residual's part). SD: the square root of each variance component, in F1 points.",
        "Interval over both the training runs and the test questions: the variance of the mean for another draw of "
        "runs and of paragraphs, with Satterthwaite's degrees of freedom (df). Share: training runs: the part of "
        "that variance from the seeds and the seed-by-question residual (what the seed-paired t-test sees); test "
        "questions: the part from the paragraphs and questions (what resampling paragraphs with the runs fixed "
        "sees).",
    ]
    return Table("variance_components", "Where the uncertainty comes from: training runs and test questions", header,
                 rows, 3, None, notes)


def set_groups_table(results: dict) -> Table:
    rows = []
    for row in results.get("robustness", []):
        for group in row.get("set_groups") or []:
            test = group.get("drop_test")
            difference = (Estimate(test["difference"], test["low"], test["high"], "†" if test.get("significant") else "")
                          if test else group.get("drop_difference"))
            seed = group.get("seed_test")
            rows.append([
                row["model"], row["twin"], f"{group['label']}: {', '.join(group['noisy_sets'])}", group.get("declared"),
                group.get("questions"), group.get("mean_drop"), group.get("twin_mean_drop"), difference,
                group.get("drop_reduction"),
                " / ".join(f"{x:.1f}" for x in seed["differences"]) if seed else None,
                Estimate(seed["difference"], seed["low"], seed["high"]) if seed else None,
                PValue(seed["p"]) if seed else None,
                PValue(seed["p_holm"]) if seed and seed.get("p_holm") is not None else None,
            ])
    header = ["Model", "Clean-trained twin", "Group", "Declared", "Questions", "Mean ΔF1", "Twin mean ΔF1",
              "Drop difference", "Drop reduction %", "By seed pair", "Drop difference [95% interval over seed pairs]",
              "p (seeds)", "p Holm (seeds)"]
    notes = [
        "Groups of noisy sets that the study declares apart from its generator split (study key set_groups), each "
        "with when and why it was declared. Mean ΔF1, drop difference and reduction as in the robustness table, "
        "pooled over the seeds.",
        "Drop difference: with an interval where the study computed the group from its per-question predictions "
        "(95% percentile bootstrap over the paragraphs, each with all its questions, and the seeds; † marks a "
        f"Holm-corrected randomisation p below {level_of(results):g} over this table's groups); a figure alone where the group was "
        "added to committed results from their per-seed figures (python -m srcframework.studies.reanalyse), which "
        "hold no per-question scores.",
        SEED_UNIT + " p (seeds): paired t-test over the seed pairs; p Holm (seeds): Holm-corrected over this table's "
        "groups.",
    ]
    return Table("set_groups", "Declared groups of noisy sets", header, rows, 4, None, notes)


def drop_by_set_table(results: dict) -> Table:
    generators = {s["name"]: s.get("generator") for s in results.get("test_sets", [])}
    rows = []
    for row in results.get("robustness", []):
        for group in row.get("groups") or []:
            if group["group"] == "all" and len(row.get("groups") or []) > 1:
                continue
            label = GROUP_LABELS.get(group["group"], group["group"])
            for entry in group.get("by_set") or []:
                seeds = entry.get("seed_differences")
                rows.append([
                    row["model"], row["twin"], entry["set"], generators.get(entry["set"]),
                    label + (" (primary)" if group["group"] == row.get("primary") else ""),
                    entry["twin_mean_drop"], entry["mean_drop"], entry["difference"],
                    " / ".join(f"{x:.1f}" for x in seeds) if seeds else None,
                    None if entry.get("share") is None else 100.0 * entry["share"],
                ])
    header = ["Model", "Clean-trained twin", "Test set", "Generator", "Group", "Twin ΔF1", "ΔF1", "Difference",
              "By seed pair", "Share of the group's sum %"]
    notes = ["Each noisy set of a generator group: the twin's drop (clean F1 minus the set's F1) and the model's, "
             "pooled over the seeds, their difference, each seed pair's difference, and the set's share of the "
             "group's summed differences (the group's drop difference is their mean)."]
    return Table("drop_by_set", "Each set's part of the drop difference", header, rows, 5, None, notes)


DESIGN_LABELS = {"independent": "independent arms (seeds per arm)", "paired": "seed pairs"}


def _needed(found: dict) -> str:
    """The seeds needed, with the interval from the SD's where the entry has it."""
    spread = found.get("seeds_needed_interval")
    if not spread:
        return str(found["seeds_needed"])
    high = spread["high"] if spread["high"] is not None else "more"
    return f"{found['seeds_needed']} [{spread['low']}, {high}]"


def power_table(results: dict) -> Table:
    power = results.get("power") or {}
    rows = []
    for entry in power.get("entries") or []:
        outcome = "clean F1 change" if entry["outcome"] == "clean_f1" else f"drop difference ({entry['group']})"
        if entry["test"] == "equivalence":
            test = f"equivalence within +-{entry['margin']:g} (TOST)"
        else:
            test = f"difference of {entry['effect']:.1f}" + (f" ({entry['reduction']:g}% of the twin's mean drop)"
                                                           if entry.get("reduction") is not None else "")
        for design, found in entry["designs"].items():
            rows.append([entry["model"], entry["twin"], outcome, test, DESIGN_LABELS[design],
                         " / ".join(str(n) for n in entry["pilot_seeds"]), found["sd"], _needed(found),
                         entry["planned_seeds"], f"{found['planned_power']:.2f}", found["planned_detects"]])
    label = "retrospective: computed after the runs from their own between-seed spread" if power.get("retrospective") \
        else "from a pilot's between-seed spread"
    first = (power.get("entries") or [{}])[0]
    header = ["Model", "Clean-trained twin", "Outcome", "Test", "Design", "Pilot seeds", "SD between seeds",
              "Seeds needed", "Planned seeds", "Power with them", "Detectable with them"]
    notes = [
        f"Power ({label}) at level {first.get('alpha', LEVEL):g} for a power of {first.get('power', 0.8):g}. SD between "
        "seeds: for independent arms the within-arm standard deviation over seeds, pooled over the two arms; for "
        "seed pairs the standard deviation of the seed-paired differences.",
        "Seeds needed: per arm (or seed pairs) for that power; equivalence: two one-sided t-tests at a true "
        "difference of 0, exact power; difference: a two-sided t-test (statsmodels TTestIndPower, TTestPower). "
        "Detectable with them: the smallest margin (equivalence) or true difference (difference test) that the "
        "planned seeds reach with that power.",
    ]
    if any("seeds_needed_interval" in found for entry in power.get("entries") or [] for found in entry["designs"].values()):
        notes.append("[low, high] after the seeds needed: the seeds needed at the two ends of the between-seed SD's "
                     "95% interval (chi-square, with the SD's degrees of freedom: both arms' seeds less 2, or the "
                     "seed pairs less 1); with few pilot seeds the SD, and so the number needed, is that uncertain.")
    return Table("power", f"Power ({label.split(':')[0]})", header, rows, 5, None, notes)


def validation_curves_table(results: dict) -> Table:
    found = []
    for model in results.get("models", []):
        for seed, curve in enumerate(model.get("validation_curves") or []):
            if curve:
                found.append((model["name"], seed_label(model, seed), curve))
    epochs = max((len(curve["values"]) for _, _, curve in found), default=0)
    rows = [[name, seed, curve["metric"]] + [curve["values"][i] if i < len(curve["values"]) else None
                                             for i in range(epochs)]
            for name, seed, curve in found]
    sources = sorted({curve.get("source") for _, _, curve in found if curve.get("source")})
    notes = ["The validation metric of each archive's training after each epoch (F1 on the 0-100 scale), on the "
             "training source's held-out articles: a learning curve, which chooses nothing."] + seed_notes([row[1] for row in rows])
    notes += [f"Source: {source}" for source in sources if not source.endswith("metrics_epoch_N.json")]
    if any(source.endswith("metrics_epoch_N.json") for source in sources):
        notes.append("Source: the metrics_epoch_N.json that AllenNLP wrote beside each archive.")
    header = ["Model", "Seed", "Metric"] + [f"Epoch {i + 1}" for i in range(epochs)]
    return Table("validation_curves", "Validation curves", header, rows, 3, None, notes)


def inference_tables(results: dict) -> List[Table]:
    """The tables of this module, in the order the reports show them (empty ones included)."""
    return [seed_tests_table(results), variance_components_table(results), set_groups_table(results),
            drop_by_set_table(results), power_table(results), validation_curves_table(results)]
