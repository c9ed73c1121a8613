"""A study's results as tables: Markdown (`results.md`), CSV (`results.csv`, one row per pair and
group, full precision) and LaTeX (`results.tex`, booktabs).

The tables, each written only when the study has rows for it:

- `em_f1`: EM and F1 per test set and model, and the F1 drop from the model's clean set
  (NoiseQA, Ravichander et al. 2021, Table 4);
- `robustness`: each model that names a clean-trained `twin`, one line per group of noisy sets
  (held-out generator first): the difference of mean drops (twin's minus the model's) with its
  interval and raw and Holm-corrected p, the relative reduction, and the change in clean F1 with
  its equivalence test (TOST) and verdict;
- `seed_tests`, `variance_components`, `set_groups`, `drop_by_set`, `power`, `validation_curves`:
  inference over training runs, declared groups of noisy sets, power and learning curves
  (`inference_tables.py`);
- `f1_by_seed`: each seed's EM, F1 and drop, for a model with several archives;
- `f1_by_country`: F1 per country of the speaker with the F1 range, best country minus worst
  (SQuAD-SRC, Tang et al. 2023, Table 3), and `f1_by_gender`;
- `question_noise`: CER, WER and BLEU of each set's questions against the clean ones;
- `wer_by_country`: the questions' WER per country (how hard each accent is for the recogniser);
- `drop_tests`: each model's clean set against each noisy set, paired by question id: the EM and
  F1 differences with their intervals, raw p-values and Holm-corrected ones; `model_comparisons`:
  the same for two models on one set; `cross_comparisons`: the study's named comparisons of one pair
  against another across sets (study key `comparisons`), over the question ids both hold;
- `flips`: questions right on the clean set and wrong on the noisy one, and the reverse;
- `f1_by_question_type`, `f1_by_length`, `f1_by_wer_bucket`: the error analysis.

Scores are percentages shown with one decimal, an interval as `value [low, high]`, `†` marking a
difference whose Holm-corrected p (over its table's family of tests) is below 0.05; `-` marks a
cell with no value.
"""
import csv
import io
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from srcframework.studies.question_types import LENGTH_BUCKETS, QUESTION_TYPES, WER_BUCKETS
from srcframework.studies.training_records import matched

SIGNIFICANT = "†"


@dataclass(frozen=True)
class Estimate:
    """A table cell: a value with its interval, and a mark (`†` for a significant difference)."""

    value: float
    low: float
    high: float
    mark: str = ""


@dataclass(frozen=True)
class PValue:
    """A table cell holding a p-value (three decimals)."""

    value: float


@dataclass
class Table:
    """One results table. `groups` optionally spans header cells with a label (the model of
    three score columns); `first` is how many leading columns are labels rather than numbers;
    `counts`, where given, parallels `rows` with the number of questions behind each cell (None
    for a cell that is no group's score)."""

    name: str
    title: str
    header: List[str]
    rows: List[List[Any]]
    first: int = 1
    groups: Optional[List[Tuple[str, int]]] = None
    notes: List[str] = field(default_factory=list)
    counts: Optional[List[List[Optional[int]]]] = None

    def flat_header(self) -> List[str]:
        """Header cells with their group label in front (`bidaf EM`), for flat formats."""
        if not self.groups:
            return list(self.header)
        labels: List[str] = []
        for label, span in self.groups:
            labels.extend([label] * span)
        return [f"{label} {cell}".strip() for label, cell in zip(labels, self.header)]


def format_cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, Estimate):
        return f"{value.value:.1f} [{value.low:.1f}, {value.high:.1f}]{value.mark}"
    if isinstance(value, PValue):
        return "<0.001" if value.value < 0.001 else f"{value.value:.3f}"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def _pair_index(results: dict) -> Dict[Tuple[str, str], dict]:
    return {(pair["model"], pair["set"]): pair for pair in results["pairs"]}


def _set_label(test_set: dict) -> str:
    noise = test_set.get("question_noise") or {}
    measured_on = noise.get("measured_on")
    if measured_on and measured_on != test_set["name"]:
        return f"{test_set['name']} (via {measured_on})"
    return test_set["name"]


def _estimate(pair: dict, metric: str) -> Any:
    """A pair's EM or F1 with its interval, where the results have one."""
    if f"{metric}_low" not in pair:
        return pair[metric]
    return Estimate(pair[metric], pair[f"{metric}_low"], pair[f"{metric}_high"])


def _difference(test: Optional[dict]) -> Any:
    if not test:
        return None
    return Estimate(test["difference"], test["low"], test["high"], SIGNIFICANT if test.get("significant") else "")


def _resampled(settings: dict) -> str:
    """What the bootstrap draws, in words."""
    if settings.get("bootstrap_unit", "question") == "question":
        return "the questions"
    return "the contexts (paragraphs), each with all its questions,"


def interval_note(results: dict) -> List[str]:
    settings = results.get("statistics")
    if not settings:
        return []
    level = round(100 * settings["confidence"])
    return [
        f"[low, high]: {level}% percentile bootstrap interval ({settings['bootstrap']} resamples of {_resampled(settings)} "
        f"with replacement, seed {settings['seed']}; the seeds of a model with several archives are resampled too); a "
        "difference's interval resamples the same question ids on both sides (paired)."
    ]


def _test_note(settings: dict, family: str, compared: str) -> str:
    """How a family's p-values were computed, and what † means."""
    found = (settings.get("families") or {}).get(family) or {}
    unit = "contexts" if settings.get("bootstrap_unit") == "context" else "questions"
    if found.get("method") == "normal":
        how = f"the normal approximation of a {settings['test']} test ({unit} flipped together)"
    else:
        how = f"a {settings['test']} test ({found.get('rounds', settings.get('permutations'))} rounds, {unit} flipped together)"
    return (f"p: uncorrected two-sided p of {how} of {compared}, pairing questions by id; p (Holm): "
            f"{settings.get('correction', 'Holm-Bonferroni')}-corrected over this table's {found.get('tests', 0)} tests; "
            f"{SIGNIFICANT}: p (Holm) < {settings['significance_level']:g} (only the corrected p marks a difference).")


def _statistics_notes(results: dict, family: str, compared: str) -> List[str]:
    settings = results.get("statistics")
    if not settings:
        return []
    return interval_note(results) + [_test_note(settings, family, compared)]


def em_f1_table(results: dict) -> Table:
    pairs = _pair_index(results)
    models = [model["name"] for model in results["models"]]
    rows = []
    for test_set in results["test_sets"]:
        row = [test_set["name"], test_set["interface"], test_set["kind"]]
        for model in models:
            pair = pairs.get((model, test_set["name"]))
            if not pair:
                row += [None] * 3
                continue
            drop = None
            if pair["reference"]:
                test = (pair.get("drop_test") or {}).get("f1")
                drop = _difference(test) if test else pair["f1_drop"]
            row += [_estimate(pair, "em"), _estimate(pair, "f1"), drop]
        rows.append(row)
    groups = [("", 3)] + [(model, 3) for model in models]
    header = ["Test set", "Interface", "Kind"] + ["EM", "F1", "ΔF1"] * len(models)
    notes = ["ΔF1: F1 on the model's clean set minus F1 on this set (a model with several archives: the mean over "
             "its seeds)."]
    notes += _statistics_notes(results, "drop_tests", "the model's clean set against this set (the drop-tests table)")
    return Table("em_f1", "EM / F1 by test set and model", header, rows, 3, groups, notes)


def _p(test: Optional[dict], key: str = "p") -> Any:
    return PValue(test[key]) if test and test.get(key) is not None else None


def _test_cells(comparison: dict) -> List[Any]:
    cells: List[Any] = [comparison["questions"]]
    for metric in ("em", "f1"):
        test = comparison.get(metric)
        cells += [_difference(test), _p(test), _p(test, "p_holm")]
    return cells


GROUP_LABELS = {"held_out": "held-out generator", "seen": "generator used in training", "undeclared": "no generator given",
                "all": "all noisy sets"}


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
                     _difference(test), _p(test), _p(test, "p_holm"), _reduction(group)]
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
        "rows. Verdict: equivalent (TOST p (Holm) < 0.05), not worse (the one-sided test against a loss of "
        f"{margin:g} or more, Holm-corrected, < 0.05), else inconclusive.",
    ]
    settings = results.get("statistics")
    if settings:
        notes += interval_note(results)
        notes.append(_test_note(settings, "robustness", "the per-question drop differences"))
    if with_seeds:
        notes.append("Mean ΔF1 by seed: each archive's mean ΔF1 over the group, the model's and then the twin's.")
        notes.append("With several seeds the intervals resample each model's seeds independently, and the p-values flip "
                     "seed-averaged differences: both are conditional on the trained models. Inference over training "
                     "runs (seed pairs) is in the seed_tests table.")
    return Table("robustness", "Robust training against the clean-trained twin", header, rows, 3, None, notes)


def seed_label(model: Optional[dict], index: int) -> str:
    """The training seed of a model's archive number `index` (its config's random_seed, from the
    study's training records or, for an archive without one, the study's `random_seeds`), else
    `#N`, the archive's place in the model's list."""
    records = (model or {}).get("training") or []
    record = records[index] if index < len(records) else None
    if record and record.get("random_seed") is not None:
        return str(record["random_seed"])
    seeds = (model or {}).get("random_seeds") or []
    if index < len(seeds) and seeds[index] is not None:
        return str(seeds[index])
    return f"#{index + 1}"


SEED_NOTE = "Seed: the random_seed of the archive's config.json (#N: the N-th archive, where the config does not say)."


def seed_notes(labels: List[str]) -> List[str]:
    """`SEED_NOTE` where a table names an archive by its place (`#N`), else nothing."""
    return [SEED_NOTE] if any(label.startswith("#") for label in labels) else []


def seeds_table(results: dict) -> Table:
    models = {model["name"]: model for model in results.get("models", [])}
    rows = [
        [pair["model"], pair["set"], seed_label(models.get(pair["model"]), seed["seed"]), seed["archive"], seed["em"],
         seed["f1"], seed["f1_drop"]]
        for pair in results["pairs"] for seed in pair.get("seeds") or []
    ]
    header = ["Model", "Test set", "Seed", "Archive", "EM", "F1", "ΔF1"]
    notes = ["Each archive (training seed) of a model with several: its EM and F1 on the set, and its drop from the "
             "same archive's F1 on the clean set. The other tables give the mean over the seeds. " + SEED_NOTE]
    return Table("f1_by_seed", "Scores of each seed", header, rows, 4, None, notes)


def training_table(results: dict) -> Table:
    """Each archive's training record: declared epoch, instances, updates, vocabulary size; a
    robust model's rows say whether it is matched with its twin (same updates and vocabulary)."""
    models = {model["name"]: model for model in results["models"]}
    rows = []
    for model in results["models"]:
        twin = models.get(model.get("twin") or "")
        for seed, record in enumerate(model.get("training") or []):
            if not record:
                continue
            twin_records = (twin or {}).get("training") or []
            twin_record = twin_records[seed] if seed < len(twin_records) else None
            same = matched(record, twin_record)
            rows.append([
                model["name"], seed_label(model, seed), f"{record.get('checkpoint')} ({record.get('epoch')} of {record.get('epochs')})",
                record.get("instances"), record.get("updates"), (record.get("vocabulary") or {}).get("tokens"),
                "" if twin is None else ("yes" if same else "no" if same is False else "?"),
            ])
    header = ["Model", "Seed", "Declared epoch", "Instances", "Updates", "Vocabulary (tokens)", "Matched with twin"]
    notes = ["From the training_record.json in each archive. A model trained on noise is matched with its twin's archive of "
             "the same seed when both made the same optimizer updates with the same vocabulary (the same tokens: "
             "a digest of the archives' vocabulary files)."] + seed_notes([row[1] for row in rows])
    return Table("training", "What each model's training did", header, rows, 3, None, notes)


def drop_tests_table(results: dict) -> Table:
    rows = [
        [pair["model"], pair["set"], pair["reference"]] + _test_cells(pair["drop_test"])
        for pair in results["pairs"]
        if pair.get("drop_test")
    ]
    header = ["Model", "Test set", "Clean set", "Questions", "ΔEM", "p (EM)", "p Holm (EM)", "ΔF1", "p (F1)", "p Holm (F1)"]
    notes = ["Δ: the score on the clean set minus the score on this set, over the questions both hold."]
    notes += _statistics_notes(results, "drop_tests", "the clean set against this set")
    return Table("drop_tests", "Is the drop real? Clean against each noisy set", header, rows, 3, None, notes)


def model_comparisons_table(results: dict) -> Table:
    rows = [[c["set"], c["first"], c["second"]] + _test_cells(c) for c in results.get("comparisons", [])]
    header = ["Test set", "Model", "Against", "Questions", "ΔEM", "p (EM)", "p Holm (EM)", "ΔF1", "p (F1)", "p Holm (F1)"]
    notes = ["Δ: the model's score minus the other model's, over the questions both answered."]
    notes += _statistics_notes(results, "model_comparisons", "one model against the other")
    return Table("model_comparisons", "Model against model on each test set", header, rows, 3, None, notes)


NO_SHARED = "no shared questions"


def cross_comparisons_table(results: dict) -> Table:
    rows = []
    for c in results.get("cross_comparisons", []):
        cells = [c["label"], f"{c['first']['model']} on {c['first']['set']}", f"{c['second']['model']} on {c['second']['set']}"]
        cells += _test_cells(c)
        if not c["questions"]:
            cells[4] = cells[7] = NO_SHARED
        rows.append(cells)
    header = ["Comparison", "First", "Against", "Shared questions", "ΔEM", "p (EM)", "p Holm (EM)", "ΔF1", "p (F1)",
              "p Holm (F1)"]
    notes = ["Δ: the first pair's score minus the second's, over the question ids both hold (shared questions); "
             "the two pairs may be different models on different sets (spoken questions against the transcripts of "
             "the same recordings, say)."]
    notes += _statistics_notes(results, "cross_comparisons", "the first pair against the second")
    return Table("cross_comparisons", "Comparisons across test sets", header, rows, 3, None, notes)


def flips_table(results: dict) -> Table:
    rows = [
        [pair["model"], pair["set"], pair["reference"], pair["flips"]["questions"], pair["flips"]["right_to_wrong"],
         pair["flips"]["wrong_to_right"]]
        for pair in results["pairs"]
        if pair.get("flips")
    ]
    header = ["Model", "Test set", "Clean set", "Questions", "Right → wrong", "Wrong → right"]
    notes = ["Right: exact match 1 (EM = 1); wrong: EM = 0. Questions paired by id with the clean set; "
             "right → wrong: right on the clean set and wrong on this one (of a model's first archive where it has "
             "several)."]
    return Table("flips", "Flips between the clean and the noisy set", header, rows, 3, None, notes)


def _breakdown_table(results: dict, key: str, order: List[str], name: str, title: str, note: str) -> Table:
    pairs = [pair for pair in results["pairs"] if pair.get(key)]
    labels = [label for label in order if any(label in pair[key] for pair in pairs)]
    rows = [[pair["model"], pair["set"]] + [pair[key][label]["f1"] if label in pair[key] else None for label in labels]
            for pair in pairs]
    counts = [[None, None] + [(pair[key].get(label) or {}).get("count") for label in labels] for pair in pairs]
    notes = [note + " Question counts and 95% intervals of each cell are in results.csv and results.json."]
    return Table(name, title, ["Model", "Test set"] + labels, rows, 2, None, notes, counts)


def _f1_range(spread: Optional[dict]) -> Any:
    """The F1 range cell: the value, with the p of its permutation test where it has one. An
    interval that earlier results hold (a bootstrap of the range, biased upward) is not shown."""
    if not spread:
        return None
    if spread.get("p") is None:
        return spread["value"]
    return f"{spread['value']:.1f} (p {format_cell(PValue(spread['p']))})"


RANGE_NOTES = {
    "country": "F1 range: the best country's F1 minus the worst's",
    "speaker": "F1 range: the best voice's F1 minus the worst's (speakers.tsv of the spoken folder names each voice; "
               "where voices are dealt over the questions, each voice reads other questions)",
}


def _groups_table(results: dict, key: str, name: str, title: str, with_range: bool) -> Table:
    pairs = [pair for pair in results["pairs"] if pair.get(f"by_{key}")]
    values = sorted({value for pair in pairs for value in pair[f"by_{key}"]})
    rows, counts = [], []
    for pair in pairs:
        groups = pair[f"by_{key}"]
        row = [pair["model"], pair["set"]] + [groups[v]["f1"] if v in groups else None for v in values]
        counts.append([None, None] + [(groups.get(v) or {}).get("count") for v in values])
        if with_range:
            row.append(_f1_range(pair.get("f1_range" if key == "country" else f"f1_range_by_{key}")))
            counts[-1].append(None)
        rows.append(row)
    header = ["Model", "Test set"] + values + (["F1 range"] if with_range else [])
    spreads = [pair.get("f1_range" if key == "country" else f"f1_range_by_{key}") or {} for pair in pairs]
    notes = [RANGE_NOTES[key] + "; (p X): a permutation test of no difference between the groups (each "
             "question's F1, the group labels shuffled over the questions with the groups' sizes kept, the range "
             "taken in each round; p = (rounds reaching the range + 1) / (rounds + 1)). The range is given with a "
             "test, not an interval: a bootstrap interval of a best-minus-worst range runs high, and where the "
             "groups differ little it can lie above the range itself."] if with_range else []
    if with_range and any("low" in spread and "p" not in spread for spread in spreads):
        notes.append("A range shown alone: results written before 2026-12-06, which hold a bootstrap interval of "
                     "the range (biased upward, not shown) and no test; the test needs the per-question "
                     "predictions (a rerun of the study).")
    return Table(name, title, header, rows, 2, None, notes, counts)


def question_noise_table(results: dict) -> Table:
    rows = []
    for test_set in results["test_sets"]:
        noise = test_set.get("question_noise")
        if noise:
            rows.append(
                [_set_label(test_set), test_set["interface"], test_set["kind"], noise["questions"], noise["changed"],
                 noise["cer"], noise["wer"], noise["bleu"]]
            )
    header = ["Test set", "Interface", "Kind", "Questions", "Changed", "CER", "WER", "BLEU"]
    notes = ["Questions against their clean originals; CER and WER after lowercasing and removing punctuation."]
    return Table("question_noise", "Question noise by test set", header, rows, 3, None, notes)


def wer_by_country_table(results: dict) -> Table:
    sets = [s for s in results["test_sets"] if (s.get("question_noise") or {}).get("by_country")]
    countries = sorted({c for s in sets for c in s["question_noise"]["by_country"]})
    rows = [[_set_label(s)] + [s["question_noise"]["by_country"].get(c) for c in countries] for s in sets]
    return Table("wer_by_country", "Question WER by country", ["Test set"] + countries, rows, 1)


def results_tables(results: dict) -> List[Table]:
    """Every table that has rows, in the order the reports show them."""
    from srcframework.studies.inference_tables import inference_tables  # it builds on this module's cells

    tables = [
        em_f1_table(results),
        robustness_table(results),
        *inference_tables(results),
        seeds_table(results),
        training_table(results),
        drop_tests_table(results),
        model_comparisons_table(results),
        cross_comparisons_table(results),
        _groups_table(results, "country", "f1_by_country", "F1 by country", with_range=True),
        _groups_table(results, "gender", "f1_by_gender", "F1 by gender", with_range=False),
        _groups_table(results, "speaker", "f1_by_speaker", "F1 by voice", with_range=True),
        question_noise_table(results),
        wer_by_country_table(results),
        flips_table(results),
        _breakdown_table(results, "by_question_type", list(QUESTION_TYPES), "f1_by_question_type",
                         "F1 by question type", "Type of the clean question, from its first wh-word."),
        _breakdown_table(results, "by_length", [label for label, _ in LENGTH_BUCKETS], "f1_by_length",
                         "F1 by question length", "Length of the clean question in words."),
        _breakdown_table(results, "by_wer_bucket", [label for label, _ in WER_BUCKETS], "f1_by_wer_bucket",
                         "F1 by question WER", "WER (%) of each noisy question against its clean one; a bucket "
                         "a-b holds WER above a up to b."),
    ]
    return [table for table in tables if table.rows]


def markdown_table(table: Table) -> str:
    header = table.flat_header()
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" if i < table.first else "---:" for i in range(len(header))) + "|",
    ]
    lines += ["| " + " | ".join(format_cell(cell) for cell in row) + " |" for row in table.rows]
    return "\n".join(lines)


def results_markdown(results: dict) -> str:
    lines = [f"# Study: {results['study']}", ""]
    for table in results_tables(results):
        lines += [f"## {table.title}", "", markdown_table(table), ""]
        lines += [note for note in table.notes] + ([""] if table.notes else [])
    return "\n".join(lines).rstrip("\n") + "\n"


CSV_COLUMNS = [
    "model", "set", "interface", "kind", "reference", "group_key", "group", "questions", "em", "f1", "em_drop",
    "f1_drop", "question_cer", "question_wer", "question_bleu", "em_low", "em_high", "f1_low", "f1_high",
    "em_drop_low", "em_drop_high", "em_drop_p", "f1_drop_low", "f1_drop_high", "f1_drop_p", "right_to_wrong",
    "wrong_to_right", "em_drop_p_holm", "f1_drop_p_holm",
]
BREAKDOWN_KEYS = {"by_question_type": "question_type", "by_length": "length", "by_wer_bucket": "wer_bucket"}


def _number(value: Optional[float]) -> str:
    return "" if value is None else f"{value:.4f}"


def _test_numbers(comparison: Optional[dict]) -> List[str]:
    """em_drop_low ... f1_drop_p of a paired comparison."""
    cells: List[str] = []
    for metric in ("em", "f1"):
        test = (comparison or {}).get(metric) or {}
        cells += [_number(test.get("low")), _number(test.get("high")), _number(test.get("p"))]
    return cells


def _holm_numbers(comparison: Optional[dict]) -> List[str]:
    """em_drop_p_holm, f1_drop_p_holm of a paired comparison."""
    return [_number(((comparison or {}).get(metric) or {}).get("p_holm")) for metric in ("em", "f1")]


def results_csv(results: dict) -> str:
    """One row per pair (`group_key` = `all`) and per pair and group: country, gender, speaker,
    question_type, length, wer_bucket; a `versus` row per two models on a set (`model` the
    second, `group` the first, the drops the first's score minus the second's); and a `cross` row
    per comparison across sets (`model` and `set` the second pair's, `group` the comparison's
    label, `questions` the shared ones, the drops the first pair's score minus the second's). The question
    CER/WER/BLEU columns are the test set's (a group row: that group's WER); `*_p` is a test's
    uncorrected p and `*_p_holm` its Holm-corrected one."""
    noise = {s["name"]: s.get("question_noise") or {} for s in results["test_sets"]}
    pairs = _pair_index(results)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for pair in results["pairs"]:
        common = [pair["model"], pair["set"], pair["interface"], pair["kind"], pair["reference"] or ""]
        set_noise = noise[pair["set"]]
        flips = pair.get("flips") or {}
        writer.writerow(
            common + ["all", "all", pair["questions"], _number(pair["em"]), _number(pair["f1"]),
                      _number(pair["em_drop"]), _number(pair["f1_drop"]), _number(set_noise.get("cer")),
                      _number(set_noise.get("wer")), _number(set_noise.get("bleu")), _number(pair.get("em_low")),
                      _number(pair.get("em_high")), _number(pair.get("f1_low")), _number(pair.get("f1_high"))]
            + _test_numbers(pair.get("drop_test")) + [flips.get("right_to_wrong", ""), flips.get("wrong_to_right", "")]
            + _holm_numbers(pair.get("drop_test"))
        )
        blank = [""] * (len(CSV_COLUMNS) - 15)
        for key in ("country", "gender", "speaker"):
            group_wer = set_noise.get(f"by_{key}") or {}
            for group, scores in pair.get(f"by_{key}", {}).items():
                writer.writerow(
                    common + [key, group, scores["count"], _number(scores["em"]), _number(scores["f1"]), "", "", "",
                              _number(group_wer.get(group)), ""] + blank
                )
        for key, group_key in BREAKDOWN_KEYS.items():
            for group, scores in pair.get(key, {}).items():
                writer.writerow(
                    common + [group_key, group, scores["count"], _number(scores["em"]), _number(scores["f1"]), "", "",
                              "", "", "", "", "", _number(scores["f1_low"]), _number(scores["f1_high"])]
                    + [""] * (len(CSV_COLUMNS) - 19)
                )
    for comparison in results.get("comparisons", []):
        second = pairs[(comparison["second"], comparison["set"])]
        differences = [_number(comparison[m]["difference"]) if comparison[m] else "" for m in ("em", "f1")]
        writer.writerow(
            [second["model"], second["set"], second["interface"], second["kind"], "", "versus", comparison["first"],
             comparison["questions"], "", ""] + differences + [""] * 7 + _test_numbers(comparison) + ["", ""]
            + _holm_numbers(comparison)
        )
    for comparison in results.get("cross_comparisons", []):
        second = pairs[(comparison["second"]["model"], comparison["second"]["set"])]
        differences = [_number(comparison[m]["difference"]) if comparison[m] else "" for m in ("em", "f1")]
        writer.writerow(
            [second["model"], second["set"], second["interface"], second["kind"], "", "cross", comparison["label"],
             comparison["questions"], "", ""] + differences + [""] * 7 + _test_numbers(comparison) + ["", ""]
            + _holm_numbers(comparison)
        )
    return out.getvalue()


TEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
    "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "Δ": r"$\Delta$",
    SIGNIFICANT: r"$^\dagger$", "→": r"$\rightarrow$", "<": r"$<$",
}


def tex_escape(text: str) -> str:
    return "".join(TEX_SPECIAL.get(char, char) for char in text)


def tex_table(table: Table) -> str:
    columns = "l" * table.first + "r" * (len(table.header) - table.first)
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\caption{" + " ".join([tex_escape(table.title) + "."] + [tex_escape(n) for n in table.notes]) + "}",
        rf"\label{{tab:{table.name.replace('_', '-')}}}",
        rf"\begin{{tabular}}{{{columns}}}",
        r"\toprule",
    ]
    if table.groups:
        cells, rules, column = [], [], 1
        for label, span in table.groups:
            cells.append(rf"\multicolumn{{{span}}}{{c}}{{{tex_escape(label)}}}" if label else " & ".join([""] * span))
            if label:
                rules.append(rf"\cmidrule(lr){{{column}-{column + span - 1}}}")
            column += span
        lines.append(" & ".join(cells) + r" \\")
        lines.append(" ".join(rules))
    lines.append(" & ".join(tex_escape(cell) for cell in table.header) + r" \\")
    lines.append(r"\midrule")
    for row in table.rows:
        lines.append(" & ".join(tex_escape(format_cell(cell)) for cell in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines)


def results_tex(results: dict) -> str:
    """The tables as LaTeX `table` floats (needs `\\usepackage{booktabs}`)."""
    parts = [f"% Study {tex_escape(results['study'])}: results tables. Needs \\usepackage{{booktabs}}."]
    parts += [tex_table(table) for table in results_tables(results)]
    return "\n\n".join(parts) + "\n"
