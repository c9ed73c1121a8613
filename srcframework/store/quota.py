"""The models folder's quota for snapshots of work under way: what `allennlp recipe snapshot` saves,
and how, so that the clone's `models/` stays within `limits.FOLDER_MAX_BYTES`."""
import logging
import os
from typing import Dict, List, Optional

from srcframework.common.errors import InputError
from srcframework.store import limits, paths, snapshot

logger = logging.getLogger(__name__)

HALF = "saved in half precision instead (weights float16, optimizer state bfloat16)"


def save_snapshots(sources: List[str], folder: Optional[str] = None) -> List[Dict]:
    """
    Snapshots each training folder or journaled job output of `sources` into `folder` and returns
    the records. A training under way whose snapshot would be over the size limit in full precision
    is saved in half precision (the weights in float16, the optimizer state in bfloat16), with a
    warning (its record says so); a finished training or a job over the limit is an `InputError`
    naming it, after the others are saved. In the clone's snapshots folder (no `folder`), while
    `models/` is over its limit, the trainings under way saved in full precision are saved again in
    half precision, the largest first, then those with the fewest epochs are left out (their
    snapshots removed), with a warning each, where that brings the folder within its limit; a
    finished training is never left out. The folder is walked once a call.

    # Parameters

    sources : `List[str]`
        Training folders and job outputs under way (`srcframework.recipes.status.under_way`).
    folder : `str`, optional
        Default: the clone's `models/snapshots`, the only folder whose quota is kept.
    """
    records, failed, sources_of = [], [], {}
    for path in sources:
        sources_of[snapshot.snapshot_name(path)] = path
        try:
            records.append(snapshot.save(path, folder=folder))
        except snapshot.SnapshotTooLarge as error:
            under_way_training = os.path.isdir(path) and not os.path.isfile(os.path.join(path, "metrics.json"))
            if not under_way_training:  # a finished training's weights or a job's journals are kept as they are
                failed.append(str(error))
                continue
            logger.warning("%s; %s", error.plain, HALF)
            try:
                records.append(snapshot.save(path, folder=folder, float16=True))
            except snapshot.SnapshotTooLarge as still:
                failed.append(f"{still} in float16")
    if failed:
        saved = ", ".join(record["name"] for record in records) or "nothing"
        raise InputError(f"{'; '.join(failed)} (saved: {saved})")
    if records and folder is None:
        _fit(records, sources_of)
    return records


def _stored_bytes(name: str) -> int:
    """The bytes of the snapshot `name` in the clone's snapshots folder (its tarball and record)."""
    files = [os.path.join(paths.snapshots_dir(), name + suffix) for suffix in (".tar.gz", ".json")]
    return sum(os.path.getsize(path) for path in files if os.path.isfile(path))


def _fit(records: List[Dict], sources_of: Dict[str, str]) -> None:
    """Brings the clone's `models/` within its limit, where it can, by saving `records` (changed in
    place) again in half precision, then leaving out the least advanced (see `save_snapshots`)."""
    models, limit = paths.models_dir(), limits.FOLDER_MAX_BYTES
    total = limits.folder_bytes(models)  # the one walk: each change below updates it

    def over(what: str) -> str:
        return f"{models} holds {total / 1e6:.1f} MB, over its {limit / 1e6:.1f} MB limit: {what}"

    # trainings under way saved in full precision go to half precision, the largest first, until it fits
    full = sorted((record for record in records if record["kind"] == "training" and not record["float16"]
                   and not record.get("finished")), key=lambda record: -record["size"])
    for record in full:
        if total <= limit:
            break
        logger.warning("%s", over(f"{record['name']} {HALF}"))
        before = _stored_bytes(record["name"])
        records[records.index(record)] = snapshot.save(sources_of[record["name"]], float16=True)
        total += _stored_bytes(record["name"]) - before
    # still over: the trainings under way with the fewest epochs (the largest first among equals) are
    # left out (their snapshots removed), so that those furthest on travel; where its run folder is
    # gone, one left out starts over from its first epoch. None is left out where leaving all of them
    # out would not bring the folder within its limit.
    behind = sorted((record for record in records if record["kind"] == "training" and not record.get("finished")),
                    key=lambda record: (record["epoch"], -record["size"]))
    if total - sum(record["size"] for record in behind) > limit:
        behind = []
    for record in behind:
        if total <= limit:
            break
        epochs = f"{record['epoch']} epoch{'' if record['epoch'] == 1 else 's'}"
        logger.warning("%s", over(f"{record['name']} (after {epochs}) left out; a machine without {record['source']} "
                                  "starts it over from its first epoch"))
        before = _stored_bytes(record["name"])
        snapshot.remove(sources_of[record["name"]])
        total -= before
        records.remove(record)
    if total > limit:
        logger.warning("%s", over("remove or release what is no longer needed before committing"))
