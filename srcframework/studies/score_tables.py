"""The tables of a study's scores: EM and F1 by set and model (`em_f1`), each seed's scores
(`f1_by_seed`), each archive's training (`training`), the flips between the clean and the noisy set,
F1 by country, gender and voice, the question noise of each set, and the error analysis's
breakdowns (question type, length, WER bucket)."""
from typing import Any, List, Optional

from srcframework.studies.captions import statistics_notes
from srcframework.studies.cells import (
    SEED_NOTE, PValue, Table, difference, estimate, format_cell, pair_index, seed_label, seed_notes, set_label,
)
from srcframework.studies.training_records import matched


def em_f1_table(results: dict) -> Table:
    pairs = pair_index(results)
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
                drop = difference(test) if test else pair["f1_drop"]
            row += [estimate(pair, "em"), estimate(pair, "f1"), drop]
        rows.append(row)
    groups = [("", 3)] + [(model, 3) for model in models]
    header = ["Test set", "Interface", "Kind"] + ["EM", "F1", "ΔF1"] * len(models)
    notes = ["ΔF1: F1 on the model's clean set minus F1 on this set (a model with several archives: the mean over "
             "its seeds)."]
    notes += statistics_notes(results, "drop_tests", "the model's clean set against this set (the drop-tests table)")
    return Table("em_f1", "EM / F1 by test set and model", header, rows, 3, groups, notes)



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


def breakdown_table(results: dict, key: str, order: List[str], name: str, title: str, note: str) -> Table:
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


def groups_table(results: dict, key: str, name: str, title: str, with_range: bool) -> Table:
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
                [set_label(test_set), test_set["interface"], test_set["kind"], noise["questions"], noise["changed"],
                 noise["cer"], noise["wer"], noise["bleu"]]
            )
    header = ["Test set", "Interface", "Kind", "Questions", "Changed", "CER", "WER", "BLEU"]
    notes = ["Questions against their clean originals; CER and WER after lowercasing and removing punctuation."]
    return Table("question_noise", "Question noise by test set", header, rows, 3, None, notes)


def wer_by_country_table(results: dict) -> Table:
    sets = [s for s in results["test_sets"] if (s.get("question_noise") or {}).get("by_country")]
    countries = sorted({c for s in sets for c in s["question_noise"]["by_country"]})
    rows = [[set_label(s)] + [s["question_noise"]["by_country"].get(c) for c in countries] for s in sets]
    return Table("wer_by_country", "Question WER by country", ["Test set"] + countries, rows, 1)

