"""What each compared model's training did, read from the `training_record.json` that the
`declared_checkpoint` callback writes and the configs put in the archive: the declared epoch, the
instances and optimizer updates, and the vocabulary size. A study records it per archive, so a
reader can see that a robust model and its twin are matched (same updates, same vocabulary)."""
import json
import tarfile
from typing import Optional

RECORD_NAME = "training_record.json"
SUMMARY_KEYS = ("checkpoint", "epoch", "epochs", "instances", "updates")


def read_training_record(archive: str) -> Optional[dict]:
    """The summary of an archive's training record (`SUMMARY_KEYS` and `vocabulary`, the size of
    each namespace), or None where the archive has none (an older archive, or a model folder)."""
    try:
        with tarfile.open(archive) as tar:
            member = next((m for m in tar.getmembers() if m.name.lstrip("./") == RECORD_NAME), None)
            if member is None:
                return None
            record = json.load(tar.extractfile(member))
    except (OSError, tarfile.TarError, ValueError):
        return None
    summary = {key: record.get(key) for key in SUMMARY_KEYS}
    summary["vocabulary"] = record.get("vocabulary") or {}
    return summary


def matched(first: Optional[dict], second: Optional[dict]) -> Optional[bool]:
    """Whether two models' records show the same updates and vocabulary; None where one is missing."""
    if not first or not second:
        return None
    return first.get("updates") == second.get("updates") and first.get("vocabulary") == second.get("vocabulary")
