"""
Released archives: a trained model in the repository, under `models/ID.tar.gz`, named by its card.

`release(ID, archive)` writes a slim copy of a finished training's `model.tar.gz` (AllenNLP's
archive) into `models/`:

- only what the model needs to answer: `config.json`, `weights.th`, `vocabulary/`, `meta.json`,
  the `training_record.json` a study reads, and the `config.json` of each pretrained encoder
  folder the config names (`fta/`, `srcframework.models.archived_encoders`: the archive then
  loads without that folder); nothing of the training state (AllenNLP's archive has no optimizer state, and the
  checkpoints of the serialization folder never enter it);
- members in name order with no times and gzip without a timestamp, so that the same weights give
  the same bytes (and the same sha256) on any machine;
- with `float16=True`, the floating tensors of `weights.th` in half precision (AllenNLP's loader
  copies them into the model's float32 parameters); use it only where evaluation F1 moves by at
  most 0.1 (`compare_f1`).

The card's `model_usage` then names the file (`archive_file: "models/ID.tar.gz"`) with its
`sha256` and `size`, and the name it is fetched by from the release host (`download: "ID.tar.gz"`,
`store.download`); `srcframework.pretrained` checks the sha256 before it loads a released archive.
A snapshot of the training under way (`srcframework.store.snapshot`) is removed once its final
archive is released. The size limits are `srcframework.store.limits`'s.
"""
import gzip
import io
import json
import os
import tarfile
from collections import OrderedDict
from typing import Dict, List, Optional, Tuple

import torch

from srcframework import pretrained
from srcframework.common.errors import InputError, InputFileNotFound
from srcframework.common.files import atomic_output, file_sha256, size_limit_text
from srcframework.models.archived_encoders import archived_members
from srcframework.store import limits, paths, snapshot

# the members of an AllenNLP archive that a released model keeps (a name, or a folder ending in /)
KEPT = ("config.json", "weights.th", "meta.json", "training_record.json", "vocabulary/", "fta/")


def members(archive: str) -> List[Tuple[str, int]]:
    """`(name, bytes)` of every file in an archive, as stored (uncompressed sizes)."""
    with tarfile.open(archive, "r:*") as tar:
        return [(member.name, member.size) for member in tar.getmembers() if member.isfile()]


def kept(name: str) -> bool:
    name = name[2:] if name.startswith("./") else name
    if name.endswith(".lock"):  # AllenNLP's vocabulary lock file: written when it is saved, not read
        return False
    return any(name == keep or (keep.endswith("/") and name.startswith(keep)) for keep in KEPT)


def _half_weights(payload: bytes) -> bytes:
    state = torch.load(io.BytesIO(payload), map_location="cpu", weights_only=False)
    halved = OrderedDict((key, value.half() if value.is_floating_point() else value) for key, value in state.items())
    buffer = io.BytesIO()
    torch.save(halved, buffer)
    return buffer.getvalue()


def slim(source: str, target: str, float16: bool = False) -> Dict:
    """
    Writes the kept members of the archive `source` to `target` (reproducible bytes) and returns
    what went in and what was left out, with sizes.
    """
    contents, dropped = {}, []
    with tarfile.open(source, "r:*") as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            name = member.name[2:] if member.name.startswith("./") else member.name
            if not kept(name):
                dropped.append((name, member.size))
                continue
            payload = tar.extractfile(member).read()
            if float16 and name == "weights.th":
                payload = _half_weights(payload)
            contents[name] = payload
    if "weights.th" not in contents or "config.json" not in contents:
        raise InputError(f"{source}: not an AllenNLP model archive (no weights.th and config.json)")
    try:
        config = json.loads(contents["config.json"])
    except ValueError:
        raise InputError(f"{source}: its config.json is not JSON") from None
    # the pretrained encoders' configs (their folders relative to the root, where trainings run)
    for name, payload in archived_members(config, root=pretrained.repository_root()).items():
        contents.setdefault(name, payload)
    os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
    with atomic_output(target, "wb") as handle:
        with gzip.GzipFile(fileobj=handle, mode="wb", mtime=0, compresslevel=9) as zipped:
            with tarfile.open(fileobj=zipped, mode="w") as tar:
                for name in sorted(contents):
                    info = tarfile.TarInfo(name)
                    info.size, info.mtime, info.mode = len(contents[name]), 0, 0o644
                    tar.addfile(info, io.BytesIO(contents[name]))
    return {
        "kept": sorted((name, len(payload)) for name, payload in contents.items()),
        "dropped": sorted(dropped),
        "bytes": os.path.getsize(target),
    }


def write_card_fields(model_id: str, **fields) -> str:
    """Sets `model_usage` fields of a card file, keeping its layout (2-space JSON); returns the file."""
    path = pretrained.card_file(model_id)
    with open(path, encoding="utf-8") as handle:
        card = json.load(handle, object_pairs_hook=OrderedDict)
    usage = card.setdefault("model_usage", OrderedDict())
    for key, value in fields.items():
        if value is None:
            usage.pop(key, None)
        else:
            usage[key] = value
    with atomic_output(path) as handle:
        handle.write(json.dumps(card, indent=2, ensure_ascii=False) + "\n")
    return path


def release(model_id: str, archive: Optional[str] = None, float16: bool = False,
            max_bytes: Optional[int] = None, folder_max_bytes: Optional[int] = None) -> Dict:
    """
    Releases `archive` (default: the card's `output`) as `models/ID.tar.gz`: slims it, checks the
    budgets (the archive, and `models/` as a whole), and writes `archive_file`, `sha256` and `size`
    into the card. Removes the snapshot of the archive's training folder, if any. Returns what was
    done, for the command to print.

    # Parameters

    model_id : `str`
    archive : `str`, optional
    float16 : `bool`, optional (default = `False`)
    max_bytes : `int`, optional (default = `limits.FILE_MAX_BYTES`, 20 MB)
    folder_max_bytes : `int`, optional (default = `limits.FOLDER_MAX_BYTES`, 60 MB)
    """
    max_bytes = limits.FILE_MAX_BYTES if max_bytes is None else max_bytes
    folder_max_bytes = limits.FOLDER_MAX_BYTES if folder_max_bytes is None else folder_max_bytes
    card = pretrained.model_card(model_id)
    model_id = card.id
    source = archive or card.model_usage.output
    if not source:
        raise InputError(f"model {model_id!r}: its card declares no output; give the archive to release")
    if not os.path.isfile(source):
        raise InputFileNotFound(f"model {model_id!r}: no archive at {source}; it is made by {pretrained.making(card)}")
    pretrained.finished_training(source)
    folder = paths.models_dir(pretrained.repository_root())
    target = os.path.join(folder, f"{model_id}{pretrained.ARCHIVE_SUFFIX}")
    relative = os.path.relpath(target, pretrained.repository_root()).replace(os.sep, "/")
    previous = os.path.getsize(target) if os.path.isfile(target) else 0
    scratch = target + ".new"
    try:
        report = slim(source, scratch, float16=float16)
        if report["bytes"] > max_bytes:
            advice = "" if float16 else " (try --float16, checked with `allennlp models release ... --check`)"
            raise InputError(f"model {model_id!r}: the released archive would be {report['bytes'] / 1e6:.1f} MB, "
                             f"over the {size_limit_text(max_bytes)} limit{advice}")
        total = limits.folder_bytes(folder) - previous  # the scratch copy is counted once
        if total > folder_max_bytes:
            raise InputError(f"models/ would hold {total / 1e6:.1f} MB with {model_id}, over its "
                             f"{size_limit_text(folder_max_bytes)} budget: release fewer or smaller archives")
        os.replace(scratch, target)
    finally:
        if os.path.exists(scratch):
            os.remove(scratch)
    digest = file_sha256(target)
    write_card_fields(model_id, archive_file=relative, sha256=digest, size=os.path.getsize(target),
                      float16=True if float16 else None, download=os.path.basename(target))
    run = os.path.dirname(os.path.abspath(source))
    removed = snapshot.remove(run)
    return {"id": model_id, "archive": relative, "sha256": digest, "size": os.path.getsize(target),
            "float16": float16, "source": source, "snapshot_removed": removed, **report}
