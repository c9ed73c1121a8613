"""One pair's evaluation: a model archive predicts one test set, and the pair's predictions and
scores are written (in the main process or in a worker of `runner.run_study`).

`predictions.jsonl` and then `scores.json` are each written atomically (temporary file, then
rename), so a killed run leaves complete pairs and nothing half-written that a rerun would trust.
"""
import copy
import gc
import json
import os
from typing import Any, Dict, List

from tqdm import tqdm

from srcframework.common.files import write_json_atomic, write_text_atomic
from srcframework.metrics.records import missing_output_keys, question_noise, record_from_output
from srcframework.studies.pairs import PREDICTIONS_NAME, SCORES_NAME, pair_name
from srcframework.studies.study import StudyError

_LOADED: Dict[str, Any] = {}


def load_model(archive_path: str, cuda_device: int):
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


def _instances(job: dict, archive: Any, where: str) -> list:
    """The set's instances as the set's reader (else the archive's) reads them, after its control."""
    from allennlp.common import Params
    from allennlp.data import DatasetReader

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
    return instances


def _records(job: dict, model: Any, instances: list, where: str) -> List[dict]:
    size = job["batch_size"]
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
    return records


def _fill_originals(records: List[dict], original: str, where: str) -> None:
    """span_qa gives a question without `original_question` in the data as its own original: take
    it from the `original` file, paired by id."""
    originals = question_map(original)
    for record in records:
        if record["original_question"] in (None, record["question"]):
            if record["id"] not in originals:
                raise StudyError(f"{where}: question id {record['id']!r} is not in {original}")
            record["original_question"] = originals[record["id"]]


def evaluate_pair(job: dict) -> dict:
    """Predict one test set with one model and write the pair's predictions and scores. `job`
    holds plain values (it crosses into worker processes): model, set, archive, data, original,
    input, dataset_reader, control, cuda_device, batch_size, key, pair_dir, progress. The question
    noise of text sets is measured on the records; an audio set's question text is not what the
    model heard, so it has none (see `wer_from`)."""
    from srcframework.reports.accent import accent_report

    where = f"pair {job['model']} x {job['set']}"
    archive = load_model(job["archive"], job["cuda_device"])
    records = _records(job, archive.model, _instances(job, archive, where), where)
    if job["original"] is not None:
        _fill_originals(records, job["original"], where)
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


def init_worker(threads: int) -> None:
    import torch

    torch.set_num_threads(threads)
