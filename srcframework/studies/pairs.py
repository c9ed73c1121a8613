"""A study's pairs: where each (model, test set, seed) pair keeps its outputs, the key that says
whether they are current, and the checks of a pair's inputs before it runs.

A pair's key is the sha256 of the archive's sha256, the data's fingerprint (a file's sha256; a
folder's list of relative paths, sizes and modification times), the dataset-reader params (and the
fingerprints of the files they name), the `original` file's sha256 and the set's `control`. An
audio set read from a file (a fid2qid csv) also fingerprints the folder around it, where its
recordings lie. A pair whose `scores.json` holds the current key is not run again.
"""
import glob
import json
import os
import tarfile
from typing import Any, Dict, List, Optional

from srcframework.common.files import path_fingerprint as files_path_fingerprint
from srcframework.common.files import text_sha256
from srcframework.studies.study import Study, StudyError

SCORES_FORMAT = 1
PREDICTIONS_NAME = "predictions.jsonl"
SCORES_NAME = "scores.json"


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


def pair_name(model: str, test_set: str, seed: int = 0) -> str:
    """The pair's folder under `pairs/`; a further seed's is `seed<i>` inside it."""
    return f"{model}__{test_set}" if seed == 0 else f"{model}__{test_set}/seed{seed}"


def pair_dir(out_dir: str, model: str, test_set: str, seed: int = 0) -> str:
    return os.path.join(out_dir, "pairs", pair_name(model, test_set, seed))


def archive_key(study: Study, model: str, seed: int) -> str:
    """The study key that names a model's `seed`-th archive, for errors."""
    return f"models.{model}.archives[{seed}]" if len(study.models[model].archives) > 1 else f"models.{model}.archive"


def check_archives(study: Study, model: str) -> None:
    """Every archive of a model must exist: a study only evaluates (a recipe's training makes an
    archive)."""
    for seed, archive in enumerate(study.models[model].archives):
        if not os.path.isfile(archive):
            raise StudyError(f"{study.path}: {archive_key(study, model, seed)}: not found: {archive}")


def pair_key(study: Study, model: str, test_set: str, fingerprints: Fingerprints, seed: int = 0) -> str:
    spec = study.test_sets[test_set]
    archive = study.models[model].archives[seed]
    if not os.path.isfile(archive):
        raise StudyError(f"{study.path}: {archive_key(study, model, seed)}: not found: {archive}")
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


def read_scores(folder: str) -> Optional[dict]:
    """A pair folder's `scores.json`, or None where it or the predictions are missing or unreadable."""
    path = os.path.join(folder, SCORES_NAME)
    if not os.path.isfile(path) or not os.path.isfile(os.path.join(folder, PREDICTIONS_NAME)):
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


def is_done(folder: str, key: str) -> bool:
    scores = read_scores(folder)
    return scores is not None and scores.get("key") == key


def check_originals(study: Study, name: str) -> None:
    """A noisy text set must say what its questions were before the noise: `original_question`
    in the file, or an `original` file. Without either its question noise would read as none. A
    set with a `control` needs neither: the control keeps each replaced question as its original."""
    spec = study.test_sets[name]
    if spec.is_clean or spec.input != "text" or spec.original is not None or spec.control is not None:
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


def check_set(study: Study, name: str) -> None:
    """The checks of a test set's files before its pairs run."""
    check_unique_ids(study, name)
    check_originals(study, name)
