"""Running a study: every (model, test set) pair, cached, resumable, parallel and shardable.

Layout of the output folder:

```
OUT_DIR/
  sets/<set>-<key>.json          test sets generated with a noise source (key: noise config, seed, input)
  pairs/<model>__<set>/predictions.jsonl   one record a question: id, prediction, answers, groups,
                                           question, original_question
  pairs/<model>__<set>/scores.json         the pair's key, accent report and question noise
  pairs/<model>__<set>/seed<i>/...          the same for the i-th further archive (seed) of a model
                                           that lists several `archives`
  results.json, results.md, results.csv, results.tex, *.png, report.html
```

The outputs are assembled from the pairs' cached predictions and scores (with the intervals,
tests and error analysis of `analysis.py`, which resamples the questions by their context: the
paragraph they ask about, read from the study's SQuAD files), and each is written atomically once
all of them are complete. A model with several archives is run once per archive; its pair's
figures are the mean over those seeds (`seeds.py`).

A pair's key is the sha256 of the archive's sha256, the data's fingerprint (a file's sha256; a
folder's list of relative paths, sizes and modification times; a generated set's config key), the
dataset-reader params (and the fingerprints of the files they name) and the `original` file's
sha256. An audio set read from a file (a fid2qid csv) also fingerprints the folder around it,
where its recordings lie. A pair whose `scores.json` holds the current key is not run again. `predictions.jsonl`
and then `scores.json` are each written atomically (temporary file, then rename), so a killed run
leaves complete pairs and nothing half-written that a rerun would trust.
"""
import copy
import gc
import glob
import json
import logging
import os
import tarfile
from dataclasses import replace
from typing import Any, Dict, List, Optional, Tuple

from allennlp.common.checks import ConfigurationError
from filelock import FileLock
from tqdm import tqdm

from srcframework.common.files import path_fingerprint as files_path_fingerprint
from srcframework.common.files import text_sha256, write_bytes_atomic, write_json_atomic, write_text_atomic
from srcframework.metrics.records import GROUP_KEYS, missing_output_keys, question_noise, record_from_output
from srcframework.jobs.challenge_set import config_key, make_challenge_set
from srcframework.studies.analysis import AnalysisOptions, add_analysis
from srcframework.studies.contexts import question_contexts
from srcframework.studies.question_scores import PairScores, combine_seeds, load_pair_scores
from srcframework.common.worker_pool import worker_results
from srcframework.studies.seeds import mean_report, seed_figures
from srcframework.studies.set_groups import spec_of
from srcframework.studies.training_records import read_random_seed, read_training_record, read_validation_curve
from srcframework.studies.study import Study, StudyError, TestSetSpec

logger = logging.getLogger(__name__)

SCORES_FORMAT = 1
PREDICTIONS_NAME = "predictions.jsonl"
SCORES_NAME = "scores.json"


# ---------------------------------------------------------------------------------------------
# fingerprints and keys


def path_fingerprint(path: str) -> str:
    """`common.files.path_fingerprint` (a file's sha256; for a folder, its files' paths, sizes and
    modification times: hashing every recording of an audio set would take minutes), with a
    missing path named."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"not found: {path}")
    return files_path_fingerprint(path)


def referenced_paths(params: Any) -> List[str]:
    """The strings of a params tree that name existing files or folders, sorted."""
    found = set()
    if isinstance(params, dict):
        for value in params.values():
            found.update(referenced_paths(value))
    elif isinstance(params, list):
        for value in params:
            found.update(referenced_paths(value))
    elif isinstance(params, str) and params and os.path.exists(params):
        found.add(params)
    elif isinstance(params, str) and "{split}" in params:  # a per-split file pattern: every match
        found.update(glob.glob(glob.escape(params).replace(glob.escape("{split}"), "*")))
    return sorted(found)


def archive_reader(archive: str) -> Any:
    """The dataset reader that predicting with an archive uses (its config's
    `validation_dataset_reader`, else `dataset_reader`), or None where it cannot be read."""
    try:
        with tarfile.open(archive) as tar:
            member = next((m for m in tar.getmembers() if m.name.lstrip("./") == "config.json"), None)
            config = json.load(tar.extractfile(member)) if member is not None else {}
    except (OSError, tarfile.TarError, ValueError):
        return None
    return config.get("validation_dataset_reader") or config.get("dataset_reader")


class Fingerprints:
    """Memoised `path_fingerprint`s, so each archive and data file is hashed once a run."""

    def __init__(self) -> None:
        self._cache: Dict[str, str] = {}

    def __call__(self, path: str) -> str:
        key = os.path.abspath(path)
        if key not in self._cache:
            self._cache[key] = path_fingerprint(path)
        return self._cache[key]


def generated_set_path(out_dir: str, spec: TestSetSpec, fingerprints: Fingerprints) -> Tuple[str, str]:
    """`(path, key)` of a set generated with a noise source; the key is `make_challenge_set`'s."""
    key = config_key(spec.noise, spec.seed, fingerprints(spec.original))
    return os.path.join(out_dir, "sets", f"{spec.name}-{key}.json"), key


def pair_name(model: str, test_set: str, seed: int = 0) -> str:
    """The pair's folder under `pairs/`; a further seed's is `seed<i>` inside it."""
    return f"{model}__{test_set}" if seed == 0 else f"{model}__{test_set}/seed{seed}"


def archive_key(study: Study, model: str, seed: int) -> str:
    """The study key that names a model's `seed`-th archive, for errors."""
    return f"models.{model}.archives[{seed}]" if len(study.models[model].archives) > 1 else f"models.{model}.archive"


def pair_key(study: Study, model: str, test_set: str, out_dir: str, fingerprints: Fingerprints, seed: int = 0) -> str:
    spec = study.test_sets[test_set]
    archive = study.models[model].archives[seed]
    if not os.path.isfile(archive):
        raise StudyError(f"{study.path}: {archive_key(study, model, seed)}: not found: {archive}")
    if spec.noise is not None:
        data = "generated:" + generated_set_path(out_dir, spec, fingerprints)[1]
    else:
        data = fingerprints(spec.data)
        if spec.input == "audio" and os.path.isfile(spec.data):  # e.g. fid2qid_dev.csv, with wavs/ beside it
            data += " " + fingerprints(os.path.dirname(os.path.abspath(spec.data)))
    # the files the set's reader names, or where it gives none the archive's reader (a squad_file,
    # say): a change in them is a change in the questions read
    reader = spec.dataset_reader if spec.dataset_reader is not None else archive_reader(archive)
    reader_files = {path: fingerprints(path) for path in referenced_paths(reader)}
    payload = {
        "format": SCORES_FORMAT,
        "archive": fingerprints(archive),
        "data": data,
        "dataset_reader": spec.dataset_reader,
        "dataset_reader_files": reader_files,
        "original": fingerprints(spec.original) if spec.original else None,
        **({"control": spec.control} if spec.control is not None else {}),
    }
    return text_sha256(json.dumps(payload, sort_keys=True))


def read_scores(pair_dir: str) -> Optional[dict]:
    path = os.path.join(pair_dir, SCORES_NAME)
    if not os.path.isfile(path) or not os.path.isfile(os.path.join(pair_dir, PREDICTIONS_NAME)):
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


def is_done(pair_dir: str, key: str) -> bool:
    scores = read_scores(pair_dir)
    return scores is not None and scores.get("key") == key


# ---------------------------------------------------------------------------------------------
# one pair (runs in the main process or in a worker)

_LOADED: Dict[str, Any] = {}


def _load(archive_path: str, cuda_device: int):
    """The archive, loaded once per process; loading another frees the previous one first, so a
    process holds one model at a time."""
    from allennlp.models.archival import load_archive

    wanted = (os.path.abspath(archive_path), cuda_device)
    if _LOADED.get("key") != wanted:
        _LOADED.clear()
        gc.collect()
        archive = load_archive(archive_path, cuda_device=cuda_device)
        archive.model.eval()
        _LOADED.update(key=wanted, archive=archive)
    return _LOADED["archive"]


def release_models() -> None:
    _LOADED.clear()
    gc.collect()


def question_map(path: str) -> Dict[str, str]:
    from srcframework.data.squad_file import load_squad_json

    dataset = load_squad_json(path)
    return {qa["id"]: qa["question"] for a in dataset["data"] for p in a["paragraphs"] for qa in p["qas"]}


def evaluate_pair(job: dict) -> dict:
    """Predict one test set with one model and write the pair's predictions and scores. `job`
    holds plain values (it crosses into worker processes): model, set, archive, data, original,
    input, dataset_reader, cuda_device, batch_size, key, pair_dir, progress. The question noise
    of text sets is measured on the records; an audio set's question text is not what the model
    heard, so it has none (see `wer_from`)."""
    from allennlp.common import Params
    from allennlp.data import DatasetReader

    from srcframework.reports.accent import accent_report

    where = f"pair {job['model']} x {job['set']}"
    archive = _load(job["archive"], job["cuda_device"])
    if job["dataset_reader"] is not None:
        reader = DatasetReader.from_params(Params(copy.deepcopy(job["dataset_reader"])))
    else:
        reader = archive.validation_dataset_reader
    instances = list(reader.read(job["data"]))
    if not instances:
        raise StudyError(f"{where}: the reader found no questions in {job['data']}")
    if job.get("control") is not None:
        from srcframework.data.question_controls import QuestionControl

        instances = QuestionControl.from_params(Params(copy.deepcopy(job["control"]))).apply(instances)
        if not instances:
            raise StudyError(f"{where}: the control {job['control']['type']} left no questions")
    for instance in instances:
        reader.apply_token_indexers(instance)
    model, size = archive.model, job["batch_size"]
    records: List[dict] = []
    bar = tqdm(total=len(instances), desc=pair_name(job["model"], job["set"], job.get("seed", 0)), unit="q",
               disable=not job["progress"])
    for start in range(0, len(instances), size):
        outputs = model.forward_on_instances(instances[start : start + size])
        for output in outputs:
            missing = missing_output_keys(output)
            if missing:
                raise StudyError(f"{where}: the model's outputs lack {missing}; compare needs span_qa-style outputs")
            records.append(record_from_output(output))
        bar.update(len(outputs))
    bar.close()
    if job["original"] is not None:
        # span_qa gives a question without `original_question` in the data as its own original
        originals = question_map(job["original"])
        for record in records:
            if record["original_question"] in (None, record["question"]):
                if record["id"] not in originals:
                    raise StudyError(f"{where}: question id {record['id']!r} is not in {job['original']}")
                record["original_question"] = originals[record["id"]]
    try:
        report = accent_report(records)
    except ValueError as err:
        raise StudyError(f"{where}: {err}") from None
    os.makedirs(job["pair_dir"], exist_ok=True)
    lines = "".join(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n" for record in records)
    write_text_atomic(os.path.join(job["pair_dir"], PREDICTIONS_NAME), lines)
    scores = {
        "key": job["key"],
        "model": job["model"],
        "set": job["set"],
        **({"seed": job["seed"]} if job.get("seed") else {}),
        "report": report,
        "question_noise": question_noise(records) if job["input"] == "text" else None,
    }
    write_json_atomic(os.path.join(job["pair_dir"], SCORES_NAME), scores)
    return {"model": job["model"], "set": job["set"], "questions": len(records), "f1": report["overall"]["f1"]}


def _init_worker(threads: int) -> None:
    import torch

    torch.set_num_threads(threads)


# ---------------------------------------------------------------------------------------------
# preparing models and sets


def ensure_archive(study: Study, model: str) -> None:
    """Train a model whose archive is missing, when the study gives its config (under a lock, so
    concurrent shards train it once)."""
    spec = study.models[model]
    for seed, archive in enumerate(spec.archives):
        if not os.path.isfile(archive) and spec.config is None:
            raise StudyError(f"{study.path}: {archive_key(study, model, seed)}: not found: {archive}")
    if os.path.isfile(spec.archive):
        return
    from allennlp.commands.train import train_model_from_file

    os.makedirs(os.path.dirname(os.path.abspath(spec.serialization_dir)), exist_ok=True)
    with FileLock(os.path.abspath(spec.serialization_dir) + ".lock"):
        if os.path.isfile(spec.archive):
            return
        recover = os.path.isfile(os.path.join(spec.serialization_dir, "config.json"))
        logger.info("training %s (%s) into %s%s", model, spec.config, spec.serialization_dir, " (recovering)" if recover else "")
        train_model_from_file(spec.config, spec.serialization_dir, recover=recover)
    _remove_lock(os.path.abspath(spec.serialization_dir) + ".lock")
    if not os.path.isfile(spec.archive):
        raise StudyError(f"{study.path}: models.{model}.archive: training wrote no {spec.archive}")


def check_originals(study: Study, name: str) -> None:
    """A noisy text set must say what its questions were before the noise: `original_question`
    in the file, or an `original` file. Without either its question noise would read as none. A
    set with a `control` needs neither: the control keeps each replaced question as its original."""
    spec = study.test_sets[name]
    if spec.is_clean or spec.input != "text" or spec.original is not None or spec.noise is not None or spec.control is not None:
        return
    from srcframework.data.squad_file import load_squad_json

    if os.path.isdir(spec.data):
        return
    dataset = load_squad_json(spec.data)
    if not any("original_question" in qa for a in dataset["data"] for p in a["paragraphs"] for qa in p["qas"]):
        raise StudyError(
            f"{study.path}: test_sets.{name}.original: required: {spec.data} has no original_question; name the "
            "clean SQuAD file its questions came from (paired by id) to measure the question noise"
        )


def check_unique_ids(study: Study, name: str) -> None:
    """A text set's SQuAD file (and its `original`) must not repeat a question id: the study
    pairs questions by id. The error names the id and the file."""
    spec = study.test_sets[name]
    if spec.input != "text":
        return
    from srcframework.data.squad_file import load_squad_json

    for key, path in (("data", spec.data), ("original", spec.original)):
        if path is None or not os.path.isfile(path):
            continue
        seen = set()
        for article in load_squad_json(path)["data"]:
            for paragraph in article.get("paragraphs", []):
                for qa in paragraph.get("qas", []):
                    qid = qa.get("id") if isinstance(qa, dict) else None
                    if qid is not None and qid in seen:
                        raise StudyError(
                            f"{study.path}: test_sets.{name}.{key}: question id {qid!r} occurs more than once in "
                            f"{path}; a study pairs questions by id, so every id must be unique"
                        )
                    seen.add(qid)


def ensure_set(study: Study, name: str, out_dir: str, fingerprints: Fingerprints, workers: int, progress: bool) -> str:
    """The path of a test set, generating it first when it comes from a noise source."""
    spec = study.test_sets[name]
    check_unique_ids(study, name)
    if spec.noise is None:
        check_originals(study, name)
        return spec.data
    path, key = generated_set_path(out_dir, spec, fingerprints)
    if os.path.isfile(path) and recorded_key(path) != key:
        logger.warning("%s was made from other inputs than test set %s names now: generating it again", path, name)
        os.remove(path)
    if not os.path.isfile(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with FileLock(path + ".lock"):
            if not os.path.isfile(path):
                logger.info("generating test set %s with %s", name, spec.noise)
                make_challenge_set(spec.original, path, spec.noise, seed=spec.seed, workers=workers, progress=progress)
        _remove_lock(path + ".lock")
    return path


def recorded_key(path: str) -> Optional[str]:
    """The key a generated set records (`noise.key`), or None where it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            return (json.load(handle).get("noise") or {}).get("key")
    except (OSError, ValueError, AttributeError):
        return None


def _remove_lock(path: str) -> None:
    """Remove a lock file once its work is done (a process still waiting on it holds it open and
    finds the work done when it gets it)."""
    try:
        os.remove(path)
    except OSError:
        pass


# ---------------------------------------------------------------------------------------------
# the run


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
    Returns counts: pairs, pairs_run, pairs_cached, sets_generated, assembled (a model with
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
    fingerprints = Fingerprints()
    mine = [] if merge else study.runs[index::count]
    for model in dict.fromkeys(model for model, _, _ in mine):
        ensure_archive(study, model)
    todo = []
    for model, test_set, seed in mine:
        key = pair_key(study, model, test_set, out_dir, fingerprints, seed)
        pair_dir = os.path.join(out_dir, "pairs", pair_name(model, test_set, seed))
        if force or not is_done(pair_dir, key):
            todo.append((model, test_set, seed, key, pair_dir))
    sets_generated = 0
    data_paths = {}
    for test_set in dict.fromkeys(test_set for _, test_set, _, _, _ in todo):
        spec = study.test_sets[test_set]
        existed = spec.noise is None or os.path.isfile(generated_set_path(out_dir, spec, fingerprints)[0])
        data_paths[test_set] = ensure_set(study, test_set, out_dir, fingerprints, workers, progress)
        sets_generated += not existed
    jobs = [
        {
            "model": model,
            "set": test_set,
            "seed": seed,
            "archive": study.models[model].archives[seed],
            "data": data_paths[test_set],
            "original": study.test_sets[test_set].original,
            "input": study.test_sets[test_set].input,
            "dataset_reader": study.test_sets[test_set].dataset_reader,
            "control": study.test_sets[test_set].control,
            "cuda_device": study.models[model].cuda_device if cuda_device is None else cuda_device,
            "batch_size": study.models[model].batch_size,
            "key": key,
            "pair_dir": pair_dir,
            "progress": progress and workers == 1,
        }
        for model, test_set, seed, key, pair_dir in todo
    ]
    _run_jobs(jobs, workers, progress)
    summary = {
        "pairs": len(study.runs),
        "pairs_in_shard": len(mine),
        "pairs_run": len(jobs),
        "pairs_cached": len(mine) - len(jobs),
        "sets_generated": sets_generated,
        "assembled": False,
    }
    if count == 1:
        write_outputs(collect_results(study, out_dir, fingerprints, analysis), out_dir)
        summary["assembled"] = True
    return summary


def _run_jobs(jobs: List[dict], workers: int, progress: bool) -> None:
    if not jobs:
        return
    bar = tqdm(total=len(jobs), desc="pairs", unit="pair", disable=not progress)
    threads = max(1, (os.cpu_count() or 1) // workers)
    # in this process (no thread change) with one worker; else a pool of spawned workers
    initializer = _init_worker if workers > 1 and len(jobs) > 1 else None
    try:
        with worker_results(evaluate_pair, jobs, workers, initializer=initializer, initargs=(threads,)) as results:
            for result in results:
                bar.set_postfix_str(f"{result['model']} x {result['set']}: F1 {result['f1']:.1f}")
                bar.update(1)
    finally:
        bar.close()
        release_models()


# ---------------------------------------------------------------------------------------------
# assembling the results



def _scores_only(groups: Dict[str, dict]) -> Dict[str, dict]:
    """A report's groups without their question WER, which `results.json` keeps with the test set."""
    return {name: {k: v for k, v in group.items() if k != "wer"} for name, group in groups.items()}


def collect_results(
    study: Study, out_dir: str, fingerprints: Optional[Fingerprints] = None, analysis: Optional[AnalysisOptions] = None
) -> dict:
    """The results of every pair (which must all be complete and current), as `results.json`
    holds them: models, test sets with their question noise, and pairs with EM/F1, the drop from
    the model's clean set and per-group scores (a model with several archives: the mean over its
    seeds, each seed's figures under `seeds`), with the intervals, tests, robustness rows and
    error analysis that `add_analysis` computes from the pairs' predictions. `analysis` without a
    `bootstrap_unit` takes the study's, and the study gives the equivalence margin."""
    fingerprints = fingerprints or Fingerprints()
    found_runs: Dict[Tuple[str, str, int], dict] = {}
    missing = []
    for model, test_set, seed in study.runs:
        pair_dir = os.path.join(out_dir, "pairs", pair_name(model, test_set, seed))
        key = pair_key(study, model, test_set, out_dir, fingerprints, seed)
        found = read_scores(pair_dir)
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
    reports: Dict[Tuple[str, str], List[dict]] = {}
    for (model, test_set, _), found in found_runs.items():  # in seed order
        reports.setdefault((model, test_set), []).append(found["report"])
    own_noise: Dict[str, dict] = {}
    for (model, test_set, seed), found in found_runs.items():  # the first pair of a set in study order
        if test_set not in own_noise and found.get("question_noise"):
            noise = dict(found["question_noise"], measured_on=test_set)
            for key in GROUP_KEYS:
                groups = found["report"].get(f"by_{key}", {})
                noise[f"by_{key}"] = {name: group["wer"] for name, group in groups.items() if "wer" in group}
            own_noise[test_set] = noise
    test_sets = []
    set_files: List[str] = []
    for name, spec in study.test_sets.items():
        if not any(test_set == name for _, test_set in study.pairs):
            continue
        if spec.noise is not None:
            path = generated_set_path(out_dir, spec, fingerprints)[0]
            data = os.path.relpath(path, out_dir)
            set_files.append(path)
        else:
            data = spec.data
            set_files.append(spec.data)
        set_files += [spec.original] if spec.original else []
        set_files += referenced_paths(spec.dataset_reader)
        test_sets.append(
            {
                "name": name,
                "interface": spec.interface,
                "kind": spec.kind,
                "input": spec.input,
                "data": data,
                "original": spec.original,
                "noise_source": spec.noise,
                "generator": spec.generator,
                "reference": study.reference_of(name),
                "question_noise": own_noise.get(spec.wer_from or name),
            }
        )
    pairs = []
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
        pairs.append(pair)
    models = []
    for name, spec in study.models.items():
        if any(model == name for model, _ in study.pairs):
            entry = {"name": name, "archive": spec.archive, "card": spec.card, "input": spec.input, "twin": spec.twin,
                     "trained_on_noise": None if spec.trained_on_noise is None else list(spec.trained_on_noise)}
            if len(spec.archives) > 1:
                entry["archives"] = list(spec.archives)
            entry["training"] = [read_training_record(archive) for archive in spec.archives]
            entry["random_seeds"] = [record.get("random_seed") if record else read_random_seed(archive)
                                     for record, archive in zip(entry["training"], spec.archives)]
            curves = [read_validation_curve(archive) for archive in spec.archives]
            if any(curves):
                entry["validation_curves"] = curves
            models.append(entry)
    results = {"study": os.path.basename(study.path), "models": models, "test_sets": test_sets, "pairs": pairs}
    data = {test_set["name"]: test_set["data"] for test_set in test_sets}
    question_scores: Dict[Tuple[str, str], PairScores] = {}
    for model, test_set in study.pairs:
        seeds = [
            load_pair_scores(os.path.join(out_dir, "pairs", pair_name(model, test_set, seed), PREDICTIONS_NAME), model,
                             test_set, data[test_set])
            for seed in range(len(study.models[model].archives))
        ]
        question_scores[(model, test_set)] = combine_seeds(seeds, data[test_set])
    options = analysis or AnalysisOptions()
    options = replace(options, bootstrap_unit=options.bootstrap_unit or study.bootstrap_unit,
                      equivalence_margin=study.equivalence_margin)
    contexts = question_contexts(set_files) if options.bootstrap_unit == "context" else None
    comparisons = [(c.label, c.first, c.second) for c in study.comparisons]
    return add_analysis(results, question_scores, options, contexts, comparisons,
                        [spec_of(group) for group in study.set_groups])


def write_outputs(results: dict, out_dir: str) -> List[str]:
    """results.json, the tables, the plots and report.html, each written atomically once all are
    rendered; a file whose bytes would not change is left as it is, and a figure an earlier run
    drew that these results leave out (nothing to show) is removed. Returns the names written,
    in order."""
    from srcframework.studies.html_report import report_html
    from srcframework.studies.plots import PLOT_NAMES, render_plots
    from srcframework.studies.tables import results_csv, results_markdown, results_tex

    files = {"results.json": (json.dumps(results, indent=1, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")}
    files["results.md"] = results_markdown(results).encode("utf-8")
    files["results.csv"] = results_csv(results).encode("utf-8")
    files["results.tex"] = results_tex(results).encode("utf-8")
    images = render_plots(results)
    files.update(images)
    files["report.html"] = report_html(results, list(images)).encode("utf-8")
    for name, payload in files.items():
        path = os.path.join(out_dir, name)
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                if handle.read() == payload:
                    continue
        write_bytes_atomic(path, payload)
    for name in PLOT_NAMES:
        if name not in images and os.path.isfile(os.path.join(out_dir, name)):
            os.remove(os.path.join(out_dir, name))
    return list(files)
