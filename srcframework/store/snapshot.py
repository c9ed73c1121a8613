"""
Snapshots of long work under way, small enough for the repository, so that it continues on the
next machine with nothing but the clone.

Two kinds:

- a **training** (`allennlp train` serialization folder): its config, vocabulary, meta data,
  `metrics_epoch_*.json`, and the newest epoch's checkpoint pair, `model_state_eN_b0.th` (the
  weights) and `training_state_eN_b0.th` (optimizer moments, learning-rate and metric trackers,
  callback state, the epoch counter). `best.th` comes along only when it differs from that
  epoch's weights. Restored into the folder, `allennlp train --recover` continues from epoch N
  exactly as it would have on the old machine: AllenNLP's own recovery, no second trainer. With
  `float16=True`, floating tensors of both files are stored in half precision (the weights in
  float16, the training state in bfloat16, whose range keeps Adam's tiny second moments from
  flushing to zero): the continuation then starts from rounded weights and moments (said in the
  record), so it is close to, not identical with, an uninterrupted run (a trainer's
  moving-average shadow weights, kept in the training state, would be rounded to bfloat16 too). A
  **finished** training (`metrics.json`) travels for the work after it that reads its folder (a
  second stage starting from its weights): its config, vocabulary, metrics, the other files of
  its archive, and the archive's weights as `best.th`, archived again as `model.tar.gz` on
  restore; no optimizer state;
- a **journal** of a resumable job (`allennlp noise`, `synthesize-speech`, `transcribe`...): the
  `OUTPUT.journal-*.jsonl` files beside an output that is not complete yet. Restored, the same
  command goes on from them (the journals carry the key of their config and input, so a changed
  job refuses them).

Tensors that training never changed (a frozen pretrained encoder, frozen GloVe) are left out of a
training's weights files by default: `save` builds the model afresh from the run's `config.json`
and vocabulary, as `allennlp train` does, and leaves out every tensor of `model_state_eN_b0.th`
and `best.th` whose dtype, shape and bytes equal the built model's tensor of the same key. The
record lists them, per file, with the sha256 of their bytes (`left_out`). `restore` builds the
model the same way, checks each sha256, and writes the complete files; that needs the files the
model's initialisation reads (the pretrained folders and weights the config names, relative to
the folder it runs in) as they were at the save. A model that cannot be built at the save keeps
every tensor (with a warning, said in the record); `leave_out_initial=False` (`--keep-initial`)
keeps them all anyway.

A snapshot is `NAME.tar.gz` plus its record `NAME.json` (kind, the run folder or output it came
from, epoch, the metrics so far, sha256 and size of the tarball, the time) in the snapshots
folder, by default `models/snapshots/` of the clone (`srcframework.store.paths`). A tarball is at most
`srcframework.store.limits.FILE_MAX_BYTES`. `restore` checks the sha256 before it
extracts anything, and refuses a folder that already holds a later epoch; a restore that cannot
put back the left-out tensors writes nothing.
"""
import copy
import datetime
import glob
import hashlib
import io
import json
import logging
import os
import re
import tarfile
import tempfile
from typing import Dict, Iterable, List, Optional

import torch

from srcframework.common.errors import InputError, InputFileNotFound
from srcframework.common.files import atomic_output, file_sha256, read_json, size_limit_text, write_json_atomic
from srcframework.common.journal import lock_holder
from srcframework.store import limits, paths

logger = logging.getLogger(__name__)


class SnapshotTooLarge(InputError):
    """A snapshot over the size limit (nothing was written). `plain` is the message without the
    advice for a person at the command line (`; try --float16`), for a caller that acts on it."""

    def __init__(self, message: str, advice: str = "") -> None:
        super().__init__(message + advice)
        self.plain = message

CHECKPOINT = re.compile(r"model_state_e(\d+)_b0\.th$")
# the files of a serialization folder that a continuation needs besides the checkpoint pair
TRAINING_FILES = ("config.json", "meta.json")
ARCHIVE_MEMBER_TIME = 0  # members carry no time, so the same state gives the same bytes


def checkpoint_epoch(run: str) -> int:
    """The newest epoch whose end-of-epoch checkpoint pair (`model_state_eN_b0.th` with its
    `training_state_eN_b0.th`) is in `run`: the epoch `allennlp train --recover` goes on from (0:
    none). `srcframework.common.training_runs.epochs_done` counts the epochs finished instead."""
    done = 0
    for name in os.listdir(run) if os.path.isdir(run) else []:
        match = CHECKPOINT.match(name)
        if match and os.path.isfile(os.path.join(run, f"training_state_e{match.group(1)}_b0.th")):
            done = max(done, int(match.group(1)))
    return done


def snapshot_name(path: str) -> str:
    """A default name: the last two parts of a run folder or output path, joined by `--`."""
    parts = [part for part in os.path.normpath(path).split(os.sep) if part not in ("", ".")]
    return "--".join(parts[-2:]).replace(" ", "_")


def _half(state, dtype: torch.dtype = torch.float16):
    """`state` with its floating tensors (nested in dicts and lists) in `dtype`; scalars (an optimizer's
    step count) are kept as they are."""
    if isinstance(state, torch.Tensor):
        return state.to(dtype) if state.is_floating_point() and state.numel() > 1 else state
    if isinstance(state, dict):
        return {key: _half(value, dtype) for key, value in state.items()}
    if isinstance(state, (list, tuple)):
        return type(state)(_half(value, dtype) for value in state)
    return state


def _full(state):
    """`state` with its float16 and bfloat16 tensors back in float32."""
    if isinstance(state, torch.Tensor):
        return state.float() if state.dtype in (torch.float16, torch.bfloat16) else state
    if isinstance(state, dict):
        return {key: _full(value) for key, value in state.items()}
    if isinstance(state, (list, tuple)):
        return type(state)(_full(value) for value in state)
    return state


def source_key(path: str) -> str:
    """How a record names the folder or output it came from: relative to the clone's root when inside it
    (so a recipe finds it from the root on any machine), else absolute."""
    root = paths.PROJECT_ROOT
    absolute = os.path.abspath(path)
    inside = os.path.commonpath([absolute, root]) == root
    return os.path.normpath(os.path.relpath(absolute, root) if inside else absolute)


def _add(archive: tarfile.TarFile, name: str, payload: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(payload)
    info.mtime = ARCHIVE_MEMBER_TIME
    info.mode = 0o644
    archive.addfile(info, io.BytesIO(payload))


def _write_tarball(path: str, members: Dict[str, bytes]) -> None:
    """A gzipped tar of `members` (name → bytes) in name order, with no times: reproducible bytes."""
    import gzip

    with atomic_output(path, "wb") as handle:
        with gzip.GzipFile(fileobj=handle, mode="wb", mtime=0, compresslevel=9) as zipped:
            with tarfile.open(fileobj=zipped, mode="w") as archive:
                for name in sorted(members):
                    _add(archive, name, members[name])


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _tensor_file(path: str, float16: bool, leave_out: Iterable[str] = (), moments: bool = False) -> bytes:
    """The bytes to store for the tensor file `path`: as it is, or with its floating tensors in half
    precision, and the tensors of `leave_out` (keys of a weights file) replaced by None, which
    `restore` fills. Half precision is float16 for weights and bfloat16 for a training state
    (`moments`): Adam's second moments are mostly below float16's smallest normal number (6.1e-5),
    where float16 keeps few bits or flushes them to zero, and a zero there makes that weight's next
    updates up to 1/sqrt(1 - beta2) times too large; bfloat16 has float32's range."""
    leave_out = list(leave_out)
    if not float16 and not leave_out:
        return _read(path)
    state = torch.load(path, map_location="cpu", weights_only=False)
    for key in leave_out:
        state[key] = None
    buffer = io.BytesIO()
    torch.save(_half(state, torch.bfloat16 if moments else torch.float16) if float16 else state, buffer)
    return buffer.getvalue()


def _tensor_bytes(tensor: torch.Tensor) -> bytes:
    return tensor.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def _one_line(error: Exception) -> str:
    return f"{type(error).__name__}: {(str(error).strip().splitlines() or [''])[0]}"


def _initial_state(run: str) -> Dict[str, torch.Tensor]:
    """
    The tensors of the model built afresh from `run`'s `config.json` and `vocabulary/`, as
    `allennlp train` builds it, that do not depend on the random generator (equal in two builds
    under two seeds): what its initialisation reads from the files the config names (pretrained
    weights, GloVe, a speech encoder's folder, relative to the current folder) and constants. The
    caller's random generator is left as it was.
    """
    import srcframework  # noqa: F401  (registers the models and modules the config names)
    from allennlp.common import Params
    from allennlp.data import Vocabulary
    from allennlp.models import Model

    config = read_json(os.path.join(run, "config.json"))
    vocab = Vocabulary.from_files(os.path.join(run, "vocabulary"))
    builds = []
    with torch.random.fork_rng(devices=[]):
        for seed in (1, 2):  # a tensor the random generator draws differs between the two builds
            torch.manual_seed(seed)
            builds.append(Model.from_params(vocab=vocab, params=Params(copy.deepcopy(config["model"]))).state_dict())
    first, second = builds
    return {key: tensor for key, tensor in first.items() if isinstance(tensor, torch.Tensor)
            and isinstance(second.get(key), torch.Tensor) and _tensor_bytes(tensor) == _tensor_bytes(second[key])}


def _equal_to_initial(path: str, initial: Dict[str, torch.Tensor]) -> Dict[str, str]:
    """The tensors of the weights file `path` whose dtype, shape and bytes equal those of `initial`'s
    tensor of the same key: key -> sha256 of its bytes."""
    same = {}
    for key, tensor in torch.load(path, map_location="cpu", weights_only=False).items():
        built = initial.get(key)
        if (isinstance(tensor, torch.Tensor) and isinstance(built, torch.Tensor) and built.dtype == tensor.dtype
                and built.shape == tensor.shape):
            payload = _tensor_bytes(tensor)
            if payload == _tensor_bytes(built):
                same[key] = hashlib.sha256(payload).hexdigest()
    return same


def _left_out(run: str, stored: List[str], leave_out_initial: bool, files: Optional[Dict[str, str]] = None):
    """`({stored file: {key: sha256}}, what the record says)`: the tensors of the weights files
    `stored` (names in `run`, or paths given by `files`) equal to those of the model built afresh."""
    if not leave_out_initial:
        return {}, "kept (leave_out_initial=False)"
    try:
        initial = _initial_state(run)
    except Exception as error:  # a file its initialisation reads is missing...: store every tensor
        logger.warning("%s: every tensor stored, as the model could not be built from config.json to leave out "
                       "those equal to their initialisation (%s)", run, _one_line(error))
        return {}, f"kept: the model could not be built from config.json ({_one_line(error)})"
    files = files or {name: os.path.join(run, name) for name in stored}
    left_out = {name: _equal_to_initial(files[name], initial) for name in stored}
    return ({name: keys for name, keys in left_out.items() if keys},
            "left out where equal to those of the model built afresh from config.json and vocabulary/")


def _finished_members(run: str, float16: bool, leave_out_initial: bool) -> (Dict[str, bytes], Dict):
    """A finished training, for the work after it that reads its folder (a second stage that starts
    from its weights): its config, vocabulary, metrics, the files its archive holds besides them
    (`training_record.json`...), and the archive's weights as `best.th`; `restore` archives them
    again as `model.tar.gz`. No optimizer state: it will not train again."""
    archive = os.path.join(run, "model.tar.gz")
    if not os.path.isfile(archive):
        raise InputError(f"{run}: a finished training (metrics.json) without its model.tar.gz")
    members = {}
    with tarfile.open(archive, "r:gz") as tar:
        for member in tar.getmembers():
            if member.isfile() and not member.name.endswith(".lock"):
                members[member.name] = tar.extractfile(member).read()
    for path in sorted(glob.glob(os.path.join(run, "metrics*.json"))):
        members[os.path.basename(path)] = _read(path)
    weights = members.pop("weights.th")
    included = sorted(name for name in members if name not in ("config.json", "meta.json")
                      and not name.startswith(("vocabulary/", "metrics")))
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "best.th")
        with open(path, "wb") as handle:
            handle.write(weights)
        left_out, initial_tensors = _left_out(run, ["best.th"], leave_out_initial, {"best.th": path})
        members["best.th"] = _tensor_file(path, float16, left_out.get("best.th", ()))
    facts = {"epoch": read_json(os.path.join(run, "metrics.json")).get("epoch", -1) + 1, "finished": True, "archive_include": included, "best_is_latest": False,
             "metrics": read_json(os.path.join(run, "metrics.json")), "initial_tensors": initial_tensors,
             "left_out": left_out}
    return members, facts


def _training_members(run: str, float16: bool, leave_out_initial: bool) -> (Dict[str, bytes], Dict):
    if os.path.isfile(os.path.join(run, "metrics.json")):
        return _finished_members(run, float16, leave_out_initial)
    epoch = checkpoint_epoch(run)
    if epoch == 0:
        raise InputError(f"{run}: no finished epoch to snapshot (no model_state_eN_b0.th with its training_state)")
    members = {}
    for name in TRAINING_FILES:
        if os.path.isfile(os.path.join(run, name)):
            members[name] = _read(os.path.join(run, name))
    for path in sorted(glob.glob(os.path.join(run, "vocabulary", "*"))):
        members["vocabulary/" + os.path.basename(path)] = _read(path)
    metrics = {}
    for index in range(epoch):  # metrics_epoch_K.json belongs to checkpoint e(K+1)
        path = os.path.join(run, f"metrics_epoch_{index}.json")
        if os.path.isfile(path):
            members[os.path.basename(path)] = _read(path)
            metrics[str(index)] = read_json(path)
    weights = f"model_state_e{epoch}_b0.th"
    best = os.path.join(run, "best.th")
    best_is_latest = os.path.isfile(best) and file_sha256(best) == file_sha256(os.path.join(run, weights))
    stored = [weights] + (["best.th"] if os.path.isfile(best) and not best_is_latest else [])
    left_out, initial_tensors = _left_out(run, stored, leave_out_initial)
    for name in stored:
        members[name] = _tensor_file(os.path.join(run, name), float16, left_out.get(name, ()))
    members[f"training_state_e{epoch}_b0.th"] = _tensor_file(os.path.join(run, f"training_state_e{epoch}_b0.th"), float16,
                                                             moments=True)
    last = metrics.get(str(epoch - 1), {})
    summary = {key: value for key, value in last.items() if key.startswith(("validation_", "training_loss", "epoch"))}
    return members, {"epoch": epoch, "best_is_latest": best_is_latest, "metrics": summary,
                     "initial_tensors": initial_tensors, "left_out": left_out}


def _journal_members(output: str) -> (Dict[str, bytes], Dict):
    if os.path.isfile(output):
        raise InputError(f"{output} is complete: commit nothing for it, or make it again with its command")
    journals = sorted(glob.glob(glob.escape(output) + ".journal-*.jsonl"))
    if not journals:
        raise InputError(f"{output}: no journal ({os.path.basename(output)}.journal-*.jsonl) of a job under way beside it")
    members = {os.path.basename(path): _read(path) for path in journals}
    rows = sum(payload.count(b"\n") for payload in members.values())
    return members, {"journal_lines": rows}


def save(path: str, name: Optional[str] = None, folder: Optional[str] = None, float16: bool = False,
         max_bytes: Optional[int] = None, leave_out_initial: bool = True) -> Dict:
    """
    Writes the snapshot of `path` (a serialization folder, or the output file of a journaled job) as
    `NAME.tar.gz` and `NAME.json` in `folder` and returns the record. A tarball over `max_bytes`
    is an `InputError` that suggests `float16` (and leaves nothing behind).

    # Parameters

    path : `str`
        A serialization folder with at least one finished epoch, or a job's output path whose
        journals are beside it.
    name : `str`, optional
        Default: `snapshot_name(path)`.
    folder : `str`, optional
        Default: `models/snapshots` of the clone.
    float16 : `bool`, optional (default = `False`)
        Store floating tensors of a training's checkpoint in half precision.
    max_bytes : `int`, optional (default = `limits.FILE_MAX_BYTES`, 20 MB)
    leave_out_initial : `bool`, optional (default = `True`)
        Leave out of a training's weights files the tensors equal to those of the model built
        afresh from its `config.json` (`restore` builds them again). A model that cannot be built
        keeps them all, with a warning.
    """
    if not os.path.exists(path) and not glob.glob(glob.escape(path) + ".journal-*.jsonl"):
        raise InputFileNotFound(f"{path}: no such training folder or job output")
    max_bytes = limits.FILE_MAX_BYTES if max_bytes is None else max_bytes
    kind = "training" if os.path.isdir(path) else "journal"
    if kind == "training":
        members, facts = _training_members(path, float16, leave_out_initial)
    else:
        members, facts = _journal_members(path)
    folder = folder or paths.snapshots_dir()
    name = name or snapshot_name(path)
    os.makedirs(folder, exist_ok=True)
    tarball = os.path.join(folder, name + ".tar.gz")
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        candidate = os.path.join(scratch, "snapshot.tar.gz")
        _write_tarball(candidate, members)
        size = os.path.getsize(candidate)
        if size > max_bytes:
            finished_run = os.path.isfile(os.path.join(path, "metrics.json"))
            advice = "" if float16 or kind != "training" or finished_run else "; try --float16"
            raise SnapshotTooLarge(f"{path}: its snapshot would be {size / 1e6:.1f} MB, over the {size_limit_text(max_bytes)} limit",
                                   advice)
        os.replace(candidate, tarball)
    record = {
        "name": name,
        "kind": kind,
        "source": source_key(path),
        "float16": bool(float16) if kind == "training" else False,
        "files": sorted(members),
        "sha256": file_sha256(tarball),
        "size": os.path.getsize(tarball),
        "saved": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        **facts,
    }
    if kind == "training" and facts.get("finished"):
        record["differs_from_uninterrupted"] = "weights rounded to float16" if float16 else "nothing (the archive's weights)"
    elif kind == "training":
        record["differs_from_uninterrupted"] = (
            "weights rounded to float16, optimizer moments to bfloat16" if float16 else "nothing (the full checkpoint pair)"
        )
    record_path = os.path.join(folder, name + ".json")
    earlier = read_json(record_path) if os.path.isfile(record_path) else None
    if earlier is not None and {**earlier, "saved": record["saved"]} == record:
        return earlier  # the same snapshot again: its record, and when it was first saved, stay
    write_json_atomic(record_path, record, indent=2)
    return record


def records(folder: Optional[str] = None) -> List[Dict]:
    """The records of every snapshot in `folder`, by name."""
    folder = folder or paths.snapshots_dir()
    found = sorted(glob.glob(os.path.join(folder, "*.json")))
    return [read_json(path) for path in found]


def find(source: str, folder: Optional[str] = None) -> Optional[Dict]:
    """The record of the snapshot taken of `source` (a run folder or job output, as given to `save`), or None."""
    wanted = source_key(source)
    for record in records(folder):
        if record.get("source") == wanted:
            return record
    return None


def reads_folder(record: Dict, run: str, folder: Optional[str] = None) -> bool:
    """Whether putting back the training snapshot `record` reads files of the run folder `run`: it
    left tensors out as equal to their initialisation, and its `config.json` names a file in `run`
    (a second stage's weights file from its first stage), so `restore` builds the model from it."""
    if not record.get("left_out"):
        return False
    tarball = os.path.join(folder or paths.snapshots_dir(), record["name"] + ".tar.gz")
    try:
        with tarfile.open(tarball, "r:gz") as archive:
            config = archive.extractfile("config.json").read().decode("utf-8")
    except (OSError, KeyError, tarfile.TarError):
        return True  # unreadable here: restore will say why; meanwhile keep what it may read
    wanted = source_key(run).rstrip("/") + "/"
    return any(source_key(value).startswith(wanted) for value in _strings(json.loads(config)))


def _strings(value):
    """Every string inside a parsed JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def restore(source: str, folder: Optional[str] = None, target: Optional[str] = None) -> Optional[Dict]:
    """
    Puts the snapshot of `source` back (into `target`, default `source`) and returns its record; None
    when there is no snapshot of it. A training folder that has finished (`metrics.json`), or holds
    as many epochs as the snapshot of a training under way, or a job whose output is complete, is
    left as it is (and the record is returned with `"restored": False`); a finished training's
    snapshot is restored over a folder with fewer or more epochs, whose other files stay; a journal on this machine with at least as many lines as the snapshot's is
    kept. Journals that a running job holds (`srcframework.common.journal.lock_holder`) are an
    `InputError` naming that job, before anything is written; so are left-out tensors that the model
    built from the snapshot's `config.json` cannot give back (see `save`).
    """
    folder = folder or paths.snapshots_dir()
    record = find(source, folder)
    if record is None:
        return None
    target = target or source
    tarball = os.path.join(folder, record["name"] + ".tar.gz")
    if not os.path.isfile(tarball):
        raise InputFileNotFound(f"snapshot {record['name']}: {tarball} is missing")
    if file_sha256(tarball) != record["sha256"]:
        raise InputError(f"snapshot {record['name']}: {tarball} does not match the sha256 in its record")
    if record["kind"] == "training":
        done = os.path.isfile(os.path.join(target, "metrics.json"))
        if done or (not record.get("finished") and checkpoint_epoch(target) >= record["epoch"]):
            return {**record, "restored": False}
        destination = target
    else:
        if os.path.isfile(target):
            return {**record, "restored": False}
        destination = os.path.dirname(os.path.abspath(target))
    with tarfile.open(tarball, "r:gz") as archive:
        members = archive.getmembers()
        targets = {}
        for member in members:
            if not member.isfile() or member.name.startswith("/") or ".." in member.name.split("/"):
                raise InputError(f"snapshot {record['name']}: unexpected member {member.name!r}")
            name = member.name
            if record["kind"] == "journal":
                name = os.path.basename(target) + name[len(os.path.basename(record["source"])):]
            targets[member.name] = os.path.join(destination, name)
        if record["kind"] == "journal":
            _check_not_running(record["name"], targets.values())
        payloads = {member.name: archive.extractfile(member).read() for member in members}
    for name, payload in payloads.items():
        if record.get("float16") and name.endswith(".th"):
            buffer = io.BytesIO()
            torch.save(_full(torch.load(io.BytesIO(payload), map_location="cpu", weights_only=False)), buffer)
            payloads[name] = buffer.getvalue()
    if record.get("left_out"):
        payloads.update(_put_back(record, payloads))
    last = "metrics.json" if record.get("finished") else None  # a finished folder is finished only at the end
    for name, payload in sorted(payloads.items(), key=lambda item: item[0] == last):
        path = targets[name]
        if record["kind"] == "journal" and _lines(path) >= payload.count(b"\n"):
            continue  # this machine's journal has gone at least as far: keep it
        if name == last:
            _archive_again(destination, record)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with atomic_output(path, "wb") as handle:
            handle.write(payload)
    if record["kind"] == "training" and record.get("best_is_latest"):
        with atomic_output(os.path.join(destination, "best.th"), "wb") as handle:
            handle.write(_read(os.path.join(destination, f"model_state_e{record['epoch']}_b0.th")))
    return {**record, "restored": True}


def _archive_again(destination: str, record: Dict) -> None:
    """`model.tar.gz` of a restored finished training (written whole, then moved into place), and
    what its callbacks wrote at its end (`write_callback_outputs`)."""
    from allennlp.models.archival import archive_model

    from srcframework.training.callback_outputs import write_callback_outputs

    partial = os.path.join(destination, ".model.tar.gz.partial")
    try:
        archive_model(destination, weights="best.th", archive_path=partial,
                      include_in_archive=record.get("archive_include") or None)
        os.replace(partial, os.path.join(destination, "model.tar.gz"))
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    write_callback_outputs(destination)


def _put_back(record: Dict, payloads: Dict[str, bytes]) -> Dict[str, bytes]:
    """The weights files of a training snapshot (member name -> bytes) with the tensors `save` left out
    put back, from the model built afresh from the snapshot's config.json and vocabulary, each checked
    against its sha256. An `InputError` naming a tensor when the model cannot be built or gives another
    tensor."""
    name = record["name"]
    with tempfile.TemporaryDirectory() as scratch:
        for member, payload in payloads.items():
            if member == "config.json" or member.startswith("vocabulary/"):
                os.makedirs(os.path.dirname(os.path.join(scratch, member)), exist_ok=True)
                with open(os.path.join(scratch, member), "wb") as handle:
                    handle.write(payload)
        try:
            initial = _initial_state(scratch)
        except Exception as error:
            first = next(key for keys in record["left_out"].values() for key in keys)
            raise InputError(f"snapshot {name}: the model cannot be built from its config.json to put back {first} "
                             f"and the other tensors left out as equal to their initialisation ({_one_line(error)}); "
                             "restore or make the files its initialisation reads first")
    completed = {}
    for member, tensors in record["left_out"].items():
        state = torch.load(io.BytesIO(payloads[member]), map_location="cpu", weights_only=False)
        for key, digest in tensors.items():
            built = initial.get(key)
            if built is None or hashlib.sha256(_tensor_bytes(built)).hexdigest() != digest:
                given = "no" if built is None else "another"
                raise InputError(f"snapshot {name}: the model built from config.json gives {given} tensor for {key}: "
                                 "the files its initialisation reads differ from the ones the snapshot was saved "
                                 "with; restore or make those first")
            state[key] = built
        buffer = io.BytesIO()
        torch.save(state, buffer)
        completed[member] = buffer.getvalue()
    return completed


def _check_not_running(name: str, journals: Iterable[str]) -> None:
    """An `InputError` naming the process when a running job holds one of `journals` (its
    `JournalLock`): restoring would replace what it is writing."""
    for journal in journals:
        holder = lock_holder(journal)
        if holder:
            raise InputError(f"snapshot {name}: {journal} is being written by a running job ({holder}); "
                             "restore it once that job has ended")


def _lines(path: str) -> int:
    return _read(path).count(b"\n") if os.path.isfile(path) else -1


def remove(source: str, folder: Optional[str] = None) -> Optional[str]:
    """Deletes the snapshot of `source` (tarball and record); returns its name, or None when there is none."""
    folder = folder or paths.snapshots_dir()
    record = find(source, folder)
    if record is None:
        return None
    for suffix in (".tar.gz", ".json"):
        path = os.path.join(folder, record["name"] + suffix)
        if os.path.exists(path):
            os.remove(path)
    return record["name"]


def describe(record: Dict) -> str:
    """One line: what the snapshot holds."""
    if record["kind"] == "training":
        found = record.get("metrics", {})
        # a finished training travels as its archive: the declared epoch's weights and figures
        prefix = "best_validation_" if record.get("finished") else "validation_"
        metrics = ", ".join(f"{key[len(prefix):]} {value:.4g}" for key, value in sorted(found.items())
                            if isinstance(value, (int, float)) and key.startswith(prefix))
        if record.get("finished"):
            declared = found.get("declared_epoch") or (found["best_epoch"] + 1 if "best_epoch" in found else None)
            what = f"finished after {record['epoch']} epochs" + (f", epoch {declared} declared" if declared else "")
        else:
            what = f"epoch {record['epoch']}"
        what += f" (validation {metrics})" if metrics else ""
    else:
        what = f"{record.get('journal_lines', 0)} journal lines"
    half = ", float16" if record.get("float16") else ""
    left_out = sum(len(keys) for keys in record.get("left_out", {}).values())
    initial = f", {left_out} initial tensors left out" if left_out else ""
    size = f"{record['size'] / 1e6:.1f} MB"
    return f"{record['name']}: {record['kind']} {record['source']}, {what}, {size}{half}{initial}"
