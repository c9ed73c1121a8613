"""Running a study: every (model, test set) pair, cached, resumable, parallel and shardable. A
study only evaluates: its archives and test sets exist before it runs (a recipe's trainings and
steps make them).

Layout of the output folder:

```
OUT_DIR/
  pairs/<model>__<set>/predictions.jsonl   one record a question: id, prediction, answers, groups,
                                           question, original_question
  pairs/<model>__<set>/scores.json         the pair's key, accent report and question noise
  pairs/<model>__<set>/seed<i>/...          the same for the i-th further archive (seed) of a model
                                           that lists several `archives`
  pairs/inputs.json                        what the results read besides the pairs (archives'
                                           training records, the sets' files, the contexts)
  results.json, results.md, results.csv, results.tex, *.png, report.html
```

A pair is run when its `scores.json` does not hold its current key (`pairs.py`), one pair a job
(`evaluation.py`). The outputs are assembled from the pairs' cached predictions and scores
(`collection.py`, with the intervals, tests and error analysis of `analysis.py`, which resamples
the questions by their context: the paragraph they ask about, read from the study's SQuAD files),
and each is written atomically once all of them are complete (`outputs.py`). A model with several
archives is run once per archive; its pair's figures are the mean over those seeds (`seeds.py`).
The pairs and `inputs.json` are the study's record: `records.py` packs it, and computes the results
again from it alone.
"""
import os
from typing import List, Optional, Tuple

from allennlp.common.checks import ConfigurationError
from tqdm import tqdm

from srcframework.common.worker_pool import worker_results
from srcframework.studies.analysis import AnalysisOptions
from srcframework.studies.collection import collect_results_and_inputs
from srcframework.studies.evaluation import evaluate_pair, init_worker, release_models
from srcframework.studies.outputs import write_outputs
from srcframework.studies.pairs import Fingerprints, check_archives, check_set, is_done, pair_dir, pair_key
from srcframework.studies.records import write_inputs
from srcframework.studies.study import Study


def _jobs(study: Study, mine: List[Tuple[str, str, int]], force: bool, cuda_device: Optional[int], out_dir: str,
          progress: bool, fingerprints: Fingerprints) -> List[dict]:
    """One job (plain values: it crosses into worker processes) for each run of `mine` whose
    pair is not done (or each with `force`)."""
    jobs = []
    for model, test_set, seed in mine:
        key = pair_key(study, model, test_set, fingerprints, seed)
        folder = pair_dir(out_dir, model, test_set, seed)
        if not force and is_done(folder, key):
            continue
        spec, model_spec = study.test_sets[test_set], study.models[model]
        jobs.append({
            "model": model,
            "set": test_set,
            "seed": seed,
            "archive": model_spec.archives[seed],
            "data": spec.data,
            "original": spec.original,
            "input": spec.input,
            "dataset_reader": spec.dataset_reader,
            "control": spec.control,
            "cuda_device": model_spec.cuda_device if cuda_device is None else cuda_device,
            "batch_size": model_spec.batch_size,
            "key": key,
            "pair_dir": folder,
            "progress": progress,
        })
    return jobs


def run_study(
    study: Study,
    out_dir: str,
    workers: int = 1,
    shard: Tuple[int, int] = (0, 1),
    merge: bool = False,
    force: bool = False,
    cuda_device: Optional[int] = None,
    progress: bool = True,
    analysis: Optional[AnalysisOptions] = None,
) -> dict:
    """
    Run the study's pairs that are missing (or all of them with `force`) and, unless this is one
    shard of several, assemble the outputs. `shard=(i, n)` runs every n-th pair from the i-th;
    `merge` runs nothing and assembles the outputs from the pairs that shards wrote (every pair
    must be complete); `analysis` sets the bootstrap, seed and examples of the statistics.
    Returns counts: pairs, pairs_in_shard, pairs_run, pairs_cached, assembled (a model with
    several archives counts one pair per archive and set).
    """
    index, count = shard
    if not (count >= 1 and 0 <= index < count):
        raise ConfigurationError(f"shard must be i/n with 0 <= i < n, got {index}/{count}")
    if workers < 1:
        raise ConfigurationError(f"workers must be at least 1, got {workers}")
    if merge and (count > 1 or force):
        raise ValueError("--merge only assembles finished pairs: give it without --shard and --force")
    os.makedirs(os.path.join(out_dir, "pairs"), exist_ok=True)
    mine = [] if merge else study.runs[index::count]
    for model in dict.fromkeys(model for model, _, _ in mine):
        check_archives(study, model)
    fingerprints = Fingerprints()
    jobs = _jobs(study, mine, force, cuda_device, out_dir, progress and workers == 1, fingerprints)
    for test_set in dict.fromkeys(job["set"] for job in jobs):
        check_set(study, test_set)
    _run_jobs(jobs, workers, progress)
    summary = {
        "pairs": len(study.runs),
        "pairs_in_shard": len(mine),
        "pairs_run": len(jobs),
        "pairs_cached": len(mine) - len(jobs),
        "assembled": False,
    }
    if count == 1:
        results, inputs = collect_results_and_inputs(study, out_dir, fingerprints, analysis)
        write_inputs(out_dir, inputs)
        write_outputs(results, out_dir)
        summary["assembled"] = True
    return summary


def _run_jobs(jobs: List[dict], workers: int, progress: bool) -> None:
    if not jobs:
        return
    bar = tqdm(total=len(jobs), desc="pairs", unit="pair", disable=not progress)
    threads = max(1, (os.cpu_count() or 1) // workers)
    # in this process (no thread change) with one worker; else a pool of workers (common.worker_pool)
    initializer = init_worker if workers > 1 and len(jobs) > 1 else None
    try:
        with worker_results(evaluate_pair, jobs, workers, initializer=initializer, initargs=(threads,)) as results:
            for result in results:
                bar.set_postfix_str(f"{result['model']} x {result['set']}: F1 {result['f1']:.1f}")
                bar.update(1)
    finally:
        bar.close()
        release_models()
