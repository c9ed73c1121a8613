"""A study's results from its pairs' cached scores and predictions, as `results.json` holds them:
models (with their training records), test sets (with their question noise), and pairs (EM/F1,
the drop from the model's clean set, per-group scores; a model with several archives: the mean
over its seeds, each seed's figures under `seeds`), with the intervals, tests, robustness rows and
error analysis of `analysis.add_analysis`.

What the analysis reads besides the pairs' records (each archive's training record, random seed
and validation curve; each set's file names and recorded noise; each question's context, from the
sets' SQuAD files) is gathered first as the study's *inputs* (`study_inputs`), which `runner.py`
keeps beside the pairs (`pairs/inputs.json`). `collect_results_and_inputs` takes them from a
record instead (`records.py`): then no archive and no data file is opened.
"""
import json
import os
from dataclasses import replace
from typing import Dict, Iterable, List, Optional, Tuple

from srcframework.metrics.records import GROUP_KEYS
from srcframework.studies.analysis import AnalysisOptions, add_analysis
from srcframework.studies.contexts import question_contexts
from srcframework.common.errors import InputError
from srcframework.studies.pairs import PREDICTIONS_NAME, Fingerprints, pair_dir, pair_key, pair_name, read_scores, referenced_paths
from srcframework.studies.question_scores import PairScores, combine_seeds, load_pair_scores
from srcframework.studies.seeds import mean_report, seed_figures
from srcframework.studies.set_groups import spec_of
from srcframework.studies.study import Study, StudyError
from srcframework.studies.training_records import read_random_seed, read_training_record, read_validation_curve
from srcframework.studies.unshared import say_unshared

Run = Tuple[str, str, int]  # (model, test set, seed index)


def found_scores(study: Study, out_dir: str, fingerprints: Fingerprints) -> Dict[Run, dict]:
    """The `scores.json` of every run of the study; a run missing or out of date is a
    `StudyError` that names the first few."""
    found_runs: Dict[Run, dict] = {}
    missing = []
    for model, test_set, seed in study.runs:
        key = pair_key(study, model, test_set, fingerprints, seed)
        found = read_scores(pair_dir(out_dir, model, test_set, seed))
        if found is None or found.get("key") != key:
            missing.append(pair_name(model, test_set, seed))
        else:
            found_runs[(model, test_set, seed)] = found
    if missing:
        raise StudyError(
            f"{study.path}: {len(missing)} of {len(study.runs)} pairs are missing or out of date in "
            f"{out_dir}/pairs ({', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''}); "
            "run the missing shards (or the study without --merge) first"
        )
    return found_runs


def recorded_scores(study: Study, out_dir: str, where: str) -> Dict[Run, dict]:
    """The `scores.json` of every run of the study from a record's pairs (`out_dir/pairs`), whose
    keys cannot be checked without the archives and data: a run the record lacks is an
    `InputError` naming it and `where` (the record)."""
    found_runs: Dict[Run, dict] = {}
    missing = []
    for model, test_set, seed in study.runs:
        found = read_scores(pair_dir(out_dir, model, test_set, seed))
        if found is None:
            missing.append(pair_name(model, test_set, seed))
        else:
            found_runs[(model, test_set, seed)] = found
    if missing:
        more = f" ({len(missing) - 1} more pairs missing)" if len(missing) > 1 else ""
        raise InputError(
            f"{where}: no pair {missing[0]} (pairs/{missing[0]}/predictions.jsonl and scores.json){more}; "
            f"the study {study.path} runs {len(study.runs)} pairs"
        )
    return found_runs


def own_question_noise(found_runs: Dict[Run, dict]) -> Dict[str, dict]:
    """Each set's question noise with its WER by group, from the first pair of the set in study
    order (every pair of a set reads the same questions)."""
    own_noise: Dict[str, dict] = {}
    for (_, test_set, _), found in found_runs.items():
        if test_set not in own_noise and found.get("question_noise"):
            noise = dict(found["question_noise"], measured_on=test_set)
            for key in GROUP_KEYS:
                groups = found["report"].get(f"by_{key}", {})
                noise[f"by_{key}"] = {name: group["wer"] for name, group in groups.items() if "wer" in group}
            own_noise[test_set] = noise
    return own_noise


def recorded_noise(path: str) -> Optional[dict]:
    """The noise configuration a set made by `allennlp noise` records (`noise.config`), or None
    for any other file."""
    if not path.endswith(".json") or not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            noise = json.load(handle).get("noise")
    except (OSError, ValueError, AttributeError):
        return None
    return noise.get("config") if isinstance(noise, dict) else None


def set_inputs(study: Study) -> Dict[str, dict]:
    """What `results.json` records of each set some pair reads from its files: the data and
    original paths, and the noise configuration the data file records."""
    return {
        name: {"data": spec.data, "original": spec.original, "noise_source": recorded_noise(spec.data)}
        for name, spec in study.test_sets.items()
        if any(test_set == name for _, test_set in study.pairs)
    }


def test_set_entries(study: Study, own_noise: Dict[str, dict], inputs: Optional[Dict[str, dict]] = None) -> List[dict]:
    """`results.json`'s test sets: those some pair reads, in study order; their files' figures
    from `inputs` (`set_inputs`, read now where not given)."""
    inputs = set_inputs(study) if inputs is None else inputs
    entries = []
    for name, spec in study.test_sets.items():
        if not any(test_set == name for _, test_set in study.pairs):
            continue
        if name not in inputs:
            raise InputError(f"the record's inputs hold no test set {name} (study {study.path})")
        entries.append({
            "name": name,
            "interface": spec.interface,
            "kind": spec.kind,
            "input": spec.input,
            "data": inputs[name]["data"],
            "original": inputs[name]["original"],
            "noise_source": inputs[name]["noise_source"],
            "generator": spec.generator,
            "reference": study.reference_of(name),
            "question_noise": own_noise.get(spec.wer_from or name),
        })
    return entries


def set_files(study: Study) -> List[str]:
    """The SQuAD files behind the study's pairs (data, originals, files the readers name): where
    the bootstrap finds each question's paragraph."""
    files: List[str] = []
    for name, spec in study.test_sets.items():
        if any(test_set == name for _, test_set in study.pairs):
            files += [spec.data] + ([spec.original] if spec.original else []) + referenced_paths(spec.dataset_reader)
    return files


def _scores_only(groups: Dict[str, dict]) -> Dict[str, dict]:
    """A report's groups without their question WER, which `results.json` keeps with the test set."""
    return {name: {k: v for k, v in group.items() if k != "wer"} for name, group in groups.items()}


def pair_entries(study: Study, found_runs: Dict[Run, dict]) -> List[dict]:
    """`results.json`'s pairs: each model's mean report over its seeds on each set, and its drop
    from the same model's reference (clean) set."""
    reports: Dict[Tuple[str, str], List[dict]] = {}
    for (model, test_set, _), found in found_runs.items():  # in seed order
        reports.setdefault((model, test_set), []).append(found["report"])
    entries = []
    for model, test_set in study.pairs:
        report = mean_report(reports[(model, test_set)])
        reference = study.reference_of(test_set)
        base_reports = reports.get((model, reference)) if reference else None
        base = mean_report(base_reports) if base_reports else None
        overall = report["overall"]
        pair = {
            "model": model,
            "set": test_set,
            "interface": study.test_sets[test_set].interface,
            "kind": study.test_sets[test_set].kind,
            "questions": overall["count"],
            "em": overall["em"],
            "f1": overall["f1"],
            "reference": reference if base else None,
            "em_drop": base["overall"]["em"] - overall["em"] if base else None,
            "f1_drop": base["overall"]["f1"] - overall["f1"] if base else None,
            "by_country": _scores_only(report.get("by_country", {})),
            "by_gender": _scores_only(report.get("by_gender", {})),
            "by_speaker": _scores_only(report.get("by_speaker", {})),
            "f1_range": report.get("f1_range"),
        }
        archives = list(study.models[model].archives)
        if len(archives) > 1:
            pair["seeds"] = seed_figures(archives, reports[(model, test_set)], base_reports)
        entries.append(pair)
    return entries


def model_inputs(study: Study) -> Dict[str, dict]:
    """What `results.json` records of each model some pair runs from its archives: their paths,
    training records, random seeds and validation curves (`archives` and `validation_curves`
    only where the results hold them: several archives; a curve)."""
    found = {}
    for name, spec in study.models.items():
        if not any(model == name for model, _ in study.pairs):
            continue
        entry = {"archive": spec.archive}
        if len(spec.archives) > 1:
            entry["archives"] = list(spec.archives)
        entry["training"] = [read_training_record(archive) for archive in spec.archives]
        entry["random_seeds"] = [record.get("random_seed") if record else read_random_seed(archive)
                                 for record, archive in zip(entry["training"], spec.archives)]
        curves = [read_validation_curve(archive) for archive in spec.archives]
        if any(curves):
            entry["validation_curves"] = curves
        found[name] = entry
    return found


def model_entries(study: Study, inputs: Optional[Dict[str, dict]] = None) -> List[dict]:
    """`results.json`'s models: those some pair runs, with each archive's training record, random
    seed and validation curve from `inputs` (`model_inputs`, read now where not given)."""
    inputs = model_inputs(study) if inputs is None else inputs
    entries = []
    for name, spec in study.models.items():
        if not any(model == name for model, _ in study.pairs):
            continue
        if name not in inputs:
            raise InputError(f"the record's inputs hold no model {name} (study {study.path})")
        entry = {"name": name, "card": spec.card, "input": spec.input, "twin": spec.twin,
                 "trained_on_noise": None if spec.trained_on_noise is None else list(spec.trained_on_noise)}
        entry.update(inputs[name])
        entries.append(entry)
    return entries


def question_scores(study: Study, out_dir: str) -> Dict[Tuple[str, str], PairScores]:
    """Each pair's per-question scores from its cached predictions (a model's seeds combined)."""
    found: Dict[Tuple[str, str], PairScores] = {}
    for model, test_set in study.pairs:
        data = study.test_sets[test_set].data
        seeds = [
            load_pair_scores(os.path.join(pair_dir(out_dir, model, test_set, seed), PREDICTIONS_NAME), model, test_set, data)
            for seed in range(len(study.models[model].archives))
        ]
        found[(model, test_set)] = combine_seeds(seeds, data)
    return found


def scored_contexts(study: Study, ids: Iterable[str]) -> Dict[str, str]:
    """`{question id: context id}` of the questions `ids` (those the pairs scored), from the
    study's SQuAD files (`set_files`); a question none of them holds is left out (it is then
    resampled alone, as `add_analysis` does with any question without a context)."""
    contexts = question_contexts(set_files(study))
    return {qid: contexts[qid] for qid in sorted(set(ids)) if qid in contexts}


def study_inputs(study: Study, scores: Dict[Tuple[str, str], PairScores]) -> dict:
    """What the results read besides the pairs' records, from the archives and the sets' files:
    `models` (`model_inputs`), `test_sets` (`set_inputs`) and `contexts` (`scored_contexts` of
    every question a pair scored), as `pairs/inputs.json` keeps them (`records.py`)."""
    return {
        "models": model_inputs(study),
        "test_sets": set_inputs(study),
        "contexts": scored_contexts(study, (qid for found in scores.values() for qid in found.ids)),
    }


def collect_results_and_inputs(
    study: Study,
    out_dir: str,
    fingerprints: Optional[Fingerprints] = None,
    analysis: Optional[AnalysisOptions] = None,
    inputs: Optional[dict] = None,
    where: Optional[str] = None,
) -> Tuple[dict, dict]:
    """`(results, inputs)`: the results of every pair as `results.json` holds them (the module
    docstring) and the inputs they read besides the pairs (`study_inputs`). Without `inputs`, the
    pairs must all be complete and current (their keys checked against the archives and data)
    and the inputs are read from the archives and the sets' files; with `inputs` (a record's,
    `where` naming it), the pairs in `out_dir` are taken as they are and nothing else is read.
    `analysis` without a `bootstrap_unit` takes the study's, and the study gives the equivalence
    margin. A robustness group or comparison without shared questions is said on stderr
    (`unshared.py`)."""
    if inputs is None:
        found_runs = found_scores(study, out_dir, fingerprints or Fingerprints())
        scores = question_scores(study, out_dir)
        inputs = study_inputs(study, scores)
    else:
        found_runs = recorded_scores(study, out_dir, where or out_dir)
        scores = question_scores(study, out_dir)
    results = {
        "study": os.path.basename(study.path),
        "models": model_entries(study, inputs["models"]),
        "test_sets": test_set_entries(study, own_question_noise(found_runs), inputs["test_sets"]),
        "pairs": pair_entries(study, found_runs),
    }
    options = analysis or AnalysisOptions()
    options = replace(options, bootstrap_unit=options.bootstrap_unit or study.bootstrap_unit,
                      equivalence_margin=study.equivalence_margin)
    contexts = inputs["contexts"] if options.bootstrap_unit == "context" else None
    comparisons = [(c.label, c.first, c.second) for c in study.comparisons]
    results = add_analysis(results, scores, options, contexts, comparisons,
                           [spec_of(group) for group in study.set_groups])
    say_unshared(results)
    return results, inputs


def collect_results(
    study: Study, out_dir: str, fingerprints: Optional[Fingerprints] = None, analysis: Optional[AnalysisOptions] = None
) -> dict:
    """The results of every pair (which must all be complete and current), as `results.json`
    holds them: `collect_results_and_inputs` without a record."""
    return collect_results_and_inputs(study, out_dir, fingerprints, analysis)[0]
