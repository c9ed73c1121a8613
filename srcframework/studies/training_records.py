"""What each compared model's training did, read from the `training_record.json` that the
`declared_checkpoint` callback writes and the configs put in the archive: the declared epoch, the
instances and optimizer updates, and the vocabulary size, with a digest of the archive's
vocabulary files. A study records it per archive, so a reader can see that a robust model and its
twin are matched (same updates, the same vocabulary token for token)."""
import hashlib
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
            members = {m.name.lstrip("./"): m for m in tar.getmembers() if m.isfile()}
            if RECORD_NAME not in members:
                return None
            record = json.load(tar.extractfile(members[RECORD_NAME]))
            digest = hashlib.sha256()
            for name in sorted(n for n in members if n.startswith("vocabulary/") and n.endswith(".txt")):
                content = tar.extractfile(members[name]).read()
                if name == "vocabulary/non_padded_namespaces.txt":  # a set, written in hash order
                    content = b"\n".join(sorted(content.splitlines()))
                digest.update(name.encode() + b"\0" + content + b"\0")
    except (OSError, tarfile.TarError, ValueError):
        return None
    summary = {key: record.get(key) for key in SUMMARY_KEYS}
    summary["vocabulary"] = record.get("vocabulary") or {}
    summary["vocabulary_sha256"] = digest.hexdigest()
    return summary


def matched(first: Optional[dict], second: Optional[dict]) -> Optional[bool]:
    """Whether two models' records show the same updates and vocabulary (sizes, and the files'
    digest where both have one); None where one is missing."""
    if not first or not second:
        return None
    same_files = first.get("vocabulary_sha256") == second.get("vocabulary_sha256") or None in (
        first.get("vocabulary_sha256"), second.get("vocabulary_sha256"))
    return first.get("updates") == second.get("updates") and first.get("vocabulary") == second.get("vocabulary") and same_files
