"""What each compared model's training did, read from the `training_record.json` that the
`declared_checkpoint` callback writes and the configs put in the archive: the declared epoch, the
instances and optimizer updates, and the vocabulary size, with a digest of the archive's
vocabulary files. A study records it per archive, so a reader can see that a robust model and its
twin are matched (same updates, the same vocabulary token for token).

Beside it, `read_validation_curve` reads the learning curve of the training that wrote an archive
(the `metrics_epoch_N.json` AllenNLP leaves in the serialization folder, next to `model.tar.gz`,
or else the record's own `validation_per_epoch`), so that a study's results hold the curves a
results page shows."""
import hashlib
import json
import os
import tarfile
from typing import Optional, Tuple

from srcframework.common.errors import InputError
from srcframework.reports.training_curve import read_training_curve

RECORD_NAME = "training_record.json"
SUMMARY_KEYS = ("checkpoint", "epoch", "epochs", "instances", "updates")


def _files(tar: tarfile.TarFile) -> dict:
    """The files of an archive by name (without a leading `./`)."""
    return {m.name.lstrip("./"): m for m in tar.getmembers() if m.isfile()}


def _read_record(archive: str) -> Optional[Tuple[dict, dict, str]]:
    """`(training record, config.json, digest of the vocabulary files)` of an archive, or None
    where it has no record (an older archive, a model folder)."""
    try:
        with tarfile.open(archive) as tar:
            members = _files(tar)
            if RECORD_NAME not in members:
                return None
            record = json.load(tar.extractfile(members[RECORD_NAME]))
            config = json.load(tar.extractfile(members["config.json"])) if "config.json" in members else {}
            digest = hashlib.sha256()
            for name in sorted(n for n in members if n.startswith("vocabulary/") and n.endswith(".txt")):
                content = tar.extractfile(members[name]).read()
                if name == "vocabulary/non_padded_namespaces.txt":  # a set, written in hash order
                    content = b"\n".join(sorted(content.splitlines()))
                digest.update(name.encode() + b"\0" + content + b"\0")
    except (OSError, tarfile.TarError, ValueError):
        return None
    return record, config, digest.hexdigest()


def read_training_record(archive: str) -> Optional[dict]:
    """The summary of an archive's training record (`SUMMARY_KEYS` and `vocabulary`, the size of
    each namespace; `random_seed` where the archive's config.json sets it), or None where the
    archive has none (an older archive, or a model folder)."""
    found = _read_record(archive)
    if found is None:
        return None
    record, config, digest = found
    summary = {key: record.get(key) for key in SUMMARY_KEYS}
    summary["vocabulary"] = record.get("vocabulary") or {}
    summary["vocabulary_sha256"] = digest
    if isinstance(config, dict) and "random_seed" in config:
        summary["random_seed"] = config["random_seed"]
    return summary


def read_random_seed(archive: str) -> Optional[int]:
    """The `random_seed` that the config.json of `archive` (a model.tar.gz or a model folder) sets,
    or None where it sets none or cannot be read; an archive without a training record has it too."""
    try:
        if os.path.isdir(archive):
            with open(os.path.join(archive, "config.json")) as handle:
                config = json.load(handle)
        else:
            with tarfile.open(archive) as tar:
                members = _files(tar)
                if "config.json" not in members:
                    return None
                config = json.load(tar.extractfile(members["config.json"]))
    except (OSError, tarfile.TarError, ValueError):
        return None
    seed = config.get("random_seed") if isinstance(config, dict) else None
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


PERCENT_SUFFIXES = ("_f1", "_em")


def read_validation_curve(archive: str) -> Optional[dict]:
    """`{"metric", "values", "source"}`: the watched validation metric of each epoch of the training
    whose serialization folder holds `archive` (F1 and EM on the 0-100 scale of the study's other
    figures; None for an epoch without it). Where the folder holds no epoch's metrics (a released
    archive put back, an archive copied elsewhere), the archive's own training record gives them
    (`validation_per_epoch`); None where neither has them (a model folder, an older archive)."""
    folder = os.path.dirname(os.path.abspath(archive)) if os.path.isfile(archive) else archive
    try:
        curve = read_training_curve(folder)
    except (InputError, OSError):
        return _recorded_curve(archive)
    metric = curve.validation_metric or "validation_f1"
    values = curve.values(metric)
    if not any(value is not None for value in values):
        return _recorded_curve(archive)
    source = os.path.join(os.path.dirname(archive) if os.path.isfile(archive) else archive, "metrics_epoch_N.json")
    return {"metric": metric, "values": _scaled(metric, values), "source": source}


def _scaled(metric: str, values: list) -> list:
    scale = 100.0 if metric.endswith(PERCENT_SUFFIXES) else 1.0
    return [None if v is None else scale * v for v in values]


def _recorded_curve(archive: str) -> Optional[dict]:
    """The curve in the archive's training record (`validation_metric`, `validation_per_epoch` by
    epoch from 1), or None."""
    found = _read_record(archive)
    if found is None:
        return None
    record = found[0]
    per_epoch = record.get("validation_per_epoch") or {}
    names = record.get("validation_metric") or ["f1"]
    if not isinstance(per_epoch, dict) or not per_epoch:
        return None
    epochs = max(int(epoch) for epoch in per_epoch)
    values = [per_epoch.get(str(epoch)) for epoch in range(1, epochs + 1)]
    metric = "validation_" + str(names[0]).lstrip("+-")
    here = os.path.abspath(archive).startswith(os.getcwd() + os.sep)  # a path in the clone: as a page shows it
    shown = os.path.relpath(archive) if here else archive
    return {"metric": metric, "values": _scaled(metric, values), "source": f"{shown} ({RECORD_NAME})"}


def matched(first: Optional[dict], second: Optional[dict]) -> Optional[bool]:
    """Whether two models' records show the same updates and vocabulary (sizes, and the files'
    digest where both have one); None where one is missing."""
    if not first or not second:
        return None
    same_files = first.get("vocabulary_sha256") == second.get("vocabulary_sha256") or None in (
        first.get("vocabulary_sha256"), second.get("vocabulary_sha256"))
    return first.get("updates") == second.get("updates") and first.get("vocabulary") == second.get("vocabulary") and same_files
