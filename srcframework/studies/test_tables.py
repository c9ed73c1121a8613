"""The tables of a study's tests: robust training against the clean-trained twin (`robustness`),
each drop (`drop_tests`), model against model on a set (`model_comparisons`) and the study's named
comparisons across sets (`cross_comparisons`)."""
from typing import Any, Optional

from srcframework.studies.captions import interval_note, level_of, statistics_notes, test_note
from srcframework.studies.cells import GROUP_LABELS, NO_SHARED, Estimate, PValue, Table, difference, p_cell, test_cells


def _reduction(group: dict) -> Any:
    """The drop reduction, with its interval where it has one."""
    if group.get("drop_reduction") is None or group.get("drop_reduction_low") is None:
        return group.get("drop_reduction")
    return Estimate(group["drop_reduction"], group["drop_reduction_low"], group["drop_reduction_high"])


def _by_seed(group: dict) -> Optional[str]:
    """Each seed's mean drop, the model's then the twin's: `9.8 / 10.4; twin 12.0 / 12.9`."""
    parts = []
    for key, label in (("seeds", ""), ("twin_seeds", "twin ")):
        if group.get(key):
            parts.append(label + " / ".join(f"{seed['mean_drop']:.1f}" for seed in group[key]))
    return "; ".join(parts) or None


def robustness_table(results: dict) -> Table:
    rows = []
    with_seeds = any(g.get("seeds") or g.get("twin_seeds") for r in results.get("robustness", []) for g in r["groups"])
    for row in results.get("robustness", []):
        clean = row.get("clean") or {}
        for group in row["groups"]:
            primary = group["group"] == row["primary"]
            label = f"{GROUP_LABELS[group['group']]}{' (primary)' if primary else ''}: {', '.join(group['noisy_sets'])}"
            test = group.get("drop_test")
            cells = [row["model"], row["twin"], label, group["questions"], group["mean_drop"], group["twin_mean_drop"],
                     difference(test), p_cell(test), p_cell(test, "p_holm"), _reduction(group)]
            if not group["questions"]:
                cells[4] = cells[6] = NO_SHARED
            if primary and clean:
                cells += [Estimate(clean["change"], clean["low"], clean["high"]), PValue(clean["tost_p"]),
                          PValue(clean["tost_p_holm"]), clean["verdict"]]
            else:
                cells += [None] * 4
            rows.append(cells + ([_by_seed(group)] if with_seeds else []))
    header = ["Model", "Clean-trained twin", "Noisy sets", "Questions", "Mean ΔF1", "Twin mean ΔF1", "Drop difference",
              "p", "p (Holm)", "Drop reduction %", "Clean F1 change", "TOST p", "TOST p (Holm)", "Clean F1 verdict"]
    header += ["Mean ΔF1 by seed"] if with_seeds else []
    margin = (results.get("statistics") or {}).get("equivalence_margin", 1.5)
    level = level_of(results)
    notes = [
        "One line per group of noisy sets: held-out generator (the sets whose noise was made by a generator the model "
        "was not trained on; the primary group), generator used in training, and all noisy sets; one group where the "
        "model does not declare trained_on_noise. Questions: the questions every pair of the group holds (model and "
        "twin, on each noisy set and on its clean set); each line's estimates, intervals and tests are over those same "
        "questions.",
        "Mean ΔF1: F1 on the clean set minus F1 on a noisy set, averaged over the group's sets and questions. Drop "
        "difference (the primary figure): the twin's mean ΔF1 minus the model's (positive: robust training lowered "
        "the drop), with its paired bootstrap interval. Drop reduction % (secondary): 100 x drop difference / twin's "
        "mean ΔF1, from the same draws.",
        f"Clean F1 change: the model's clean F1 minus the twin's, with its interval. TOST p: two one-sided tests "
        f"(bootstrap) that the change lies within +-{margin:g} F1 points; TOST p (Holm): corrected over this table's "
        f"rows. Verdict: equivalent (TOST p (Holm) < {level:g}), not worse (the one-sided test against a loss of "
        f"{margin:g} or more, Holm-corrected, < {level:g}), else inconclusive.",
    ]
    if any(not group["questions"] for row in results.get("robustness", []) for group in row["groups"]):
        notes.append(f"{NO_SHARED}: no question id is held by every pair of the group (the model and the twin, on each "
                     "noisy set and on its clean set), so it has no figures; the sets may come from other question "
                     "pools than their clean set (name each noisy set's own clean set as its `reference`).")
    settings = results.get("statistics")
    if settings:
        notes += interval_note(results)
        notes.append(test_note(settings, "robustness", "the per-question drop differences"))
    if with_seeds:
        notes.append("Mean ΔF1 by seed: each archive's mean ΔF1 over the group, the model's and then the twin's.")
        notes.append("With several seeds the intervals resample each model's seeds independently, and the p-values flip "
                     "seed-averaged differences: both are conditional on the trained models. Inference over training "
                     "runs (seed pairs) is in the seed_tests table.")
    return Table("robustness", "Robust training against the clean-trained twin", header, rows, 3, None, notes)


def drop_tests_table(results: dict) -> Table:
    rows = [
        [pair["model"], pair["set"], pair["reference"]] + test_cells(pair["drop_test"])
        for pair in results["pairs"]
        if pair.get("drop_test")
    ]
    header = ["Model", "Test set", "Clean set", "Questions", "ΔEM", "p (EM)", "p Holm (EM)", "ΔF1", "p (F1)", "p Holm (F1)"]
    notes = ["Δ: the score on the clean set minus the score on this set, over the questions both hold."]
    notes += statistics_notes(results, "drop_tests", "the clean set against this set")
    return Table("drop_tests", "Is the drop real? Clean against each noisy set", header, rows, 3, None, notes)


def model_comparisons_table(results: dict) -> Table:
    rows = []
    for c in results.get("comparisons", []):
        cells = [c["set"], c["first"], c["second"]] + test_cells(c)
        if not c["questions"]:
            cells[4] = cells[7] = NO_SHARED
        rows.append(cells)
    header = ["Test set", "Model", "Against", "Questions", "ΔEM", "p (EM)", "p Holm (EM)", "ΔF1", "p (F1)", "p Holm (F1)"]
    notes = ["Δ: the model's score minus the other model's, over the questions both answered."]
    notes += statistics_notes(results, "model_comparisons", "one model against the other")
    return Table("model_comparisons", "Model against model on each test set", header, rows, 3, None, notes)


def cross_comparisons_table(results: dict) -> Table:
    rows = []
    for c in results.get("cross_comparisons", []):
        cells = [c["label"], f"{c['first']['model']} on {c['first']['set']}", f"{c['second']['model']} on {c['second']['set']}"]
        cells += test_cells(c)
        if not c["questions"]:
            cells[4] = cells[7] = NO_SHARED
        rows.append(cells)
    header = ["Comparison", "First", "Against", "Shared questions", "ΔEM", "p (EM)", "p Holm (EM)", "ΔF1", "p (F1)",
              "p Holm (F1)"]
    notes = ["Δ: the first pair's score minus the second's, over the question ids both hold (shared questions); "
             "the two pairs may be different models on different sets (spoken questions against the transcripts of "
             "the same recordings, say)."]
    notes += statistics_notes(results, "cross_comparisons", "the first pair against the second")
    return Table("cross_comparisons", "Comparisons across test sets", header, rows, 3, None, notes)

