"""The one place that adapts AllenNLP 2.10.1 to today's torch.

Each adaptation is applied only where the old API is missing, so on an environment that still has
it nothing changes. Current adaptations:

- ``torch.optim.lr_scheduler.ReduceLROnPlateau`` lost its ``verbose`` argument (torch >= 2.7), but
  AllenNLP's ``reduce_on_plateau`` scheduler still passes it. The scheduler keeps accepting
  ``verbose`` in configs and no longer forwards it.
- ``allennlp.models.archival.extracted_archive`` (which ``load_archive`` and the ``pretrained``
  initializer use, so ``evaluate``, ``predict``, ``cascade``, ``compare`` and ``from_archive``
  configs) extracts a model archive with ``tarfile.extractall`` and no filter, so a member named
  ``../x`` or ``/x``, or a link pointing outside, writes outside the extraction folder. It now
  refuses such an archive with an `UnsafeArchiveError` naming the archive and the member, before
  anything is written, and extracts the rest with ``tarfile``'s ``"data"`` filter. Before that
  it reads the archive to its end (`srcframework.common.archive_check`): the gzip stream's CRC
  and length and the tar listing, which ``tarfile`` alone never checks whole, so a flipped byte, a
  truncated file or a git-LFS pointer file is one line and nothing is extracted. An archive
  that a stopped training left (a ``model.tar.gz`` whose serialization folder has no
  ``metrics.json``: AllenNLP archives the best epoch so far when a training is interrupted) is
  loaded with a warning line saying so and how to resume the training
  (`srcframework.common.training_runs.stopped_archive_note`).
- ``allennlp.models.archival.archive_model`` (which ``train`` calls at its end) writes
  ``model.tar.gz`` straight under its name, so a full disk leaves a truncated archive there. It
  now writes under a temporary name in the same folder and renames it once whole; a full disk is
  a `DiskFull` line naming the folder, and an archive already there is kept. ``dump_metrics``
  (``metrics_epoch_N.json``, ``metrics.json``, whose presence marks a finished training, and
  ``evaluate --output-file``) writes the same way.
- ``allennlp.common.params.with_overrides`` (every ``-o``/``--overrides``, a model card's
  overrides, ``load_archive(overrides=...)``) replaces a whole block when an override's key is not
  dotted: ``{"trainer": {"num_epochs": 1}}`` leaves a trainer of ``num_epochs`` alone, without a
  word. It now logs one warning line for each override that drops keys of the block it replaces,
  naming them and giving the dotted form that changes only what the override gives
  (``{"trainer.num_epochs": 1}``). A block given another ``type`` is a new component, whose old
  keys belong to the old type: that is not warned about.
"""
import inspect
import json
import logging
import os
import shutil
import tarfile
import tempfile
from contextlib import contextmanager
from typing import Any, Dict, List, Tuple

import torch
from allennlp.common.checks import ConfigurationError

from srcframework.common.archive_check import check_archive
from srcframework.common.files import DiskFull, disk_full_message, is_disk_full, write_text_atomic
from srcframework.common.training_runs import stopped_archive_note

logger = logging.getLogger(__name__)

APPLIED: list = []


def _patch_reduce_on_plateau() -> None:
    if "verbose" in inspect.signature(torch.optim.lr_scheduler.ReduceLROnPlateau).parameters:
        return
    from allennlp.training.learning_rate_schedulers import pytorch_lr_schedulers as schedulers

    cls = schedulers.ReduceOnPlateauLearningRateScheduler
    parent = schedulers._PyTorchLearningRateSchedulerWithMetricsWrapper

    def __init__(
        self,
        optimizer: torch.optim.Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        verbose: bool = False,
        threshold_mode: str = "rel",
        threshold: float = 1e-4,
        cooldown: int = 0,
        min_lr=0.0,
        eps: float = 1e-8,
    ) -> None:
        lr_scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
            optimizer=optimizer,
            mode=mode,
            factor=factor,
            patience=patience,
            threshold_mode=threshold_mode,
            threshold=threshold,
            cooldown=cooldown,
            min_lr=min_lr,
            eps=eps,
        )
        parent.__init__(self, lr_scheduler)

    cls.__init__ = __init__
    APPLIED.append("reduce_on_plateau: dropped 'verbose'")


class UnsafeArchiveError(ConfigurationError):
    """A model archive holds a member that would be written outside its extraction folder."""


def _unsafe_reason(member: tarfile.TarInfo) -> str:
    """Why extracting `member` could write outside the folder, or "" when it cannot."""
    name = member.name
    if os.path.isabs(name) or name.startswith(("/", "\\")) or os.path.splitdrive(name)[0]:
        return "has an absolute name"
    if ".." in name.replace("\\", "/").split("/"):
        return "has a '..' component in its name"
    if member.issym() or member.islnk():
        target = member.linkname
        if os.path.isabs(target) or target.startswith(("/", "\\")):
            return f"is a link to the absolute path {target!r}"
        # a symbolic link is relative to its own folder, a hard link to the archive's root
        base = os.path.dirname(name) if member.issym() else ""
        if os.path.normpath(os.path.join("root", base, target)).split(os.sep)[0] != "root":
            return f"is a link to {target!r}, outside the archive"
    if member.ischr() or member.isblk() or member.isfifo():
        return "is a device or FIFO"
    return ""


def safe_extract(archive_file, folder: str) -> None:
    """
    Extracts the gzipped tar `archive_file` into `folder`, refusing (before writing anything) an
    archive with a member that would land outside `folder`: an absolute name, a `..` component, a
    symbolic or hard link pointing outside, a device. Where Python has it, `tarfile`'s `"data"`
    filter checks every member again as it is written (links through links included). Before
    that, the whole file is read (`check_archive`): a damaged, truncated or git-LFS pointer file is
    an `ArchiveError` line, and nothing is extracted.

    # Raises

    ArchiveError
        Says what is wrong with the file.

    UnsafeArchiveError
        Names the archive and the offending member.
    """
    if isinstance(archive_file, (str, os.PathLike)):
        check_archive(archive_file)
    with tarfile.open(archive_file, "r:gz") as archive:
        members = archive.getmembers()
        for member in members:
            reason = _unsafe_reason(member)
            if reason:
                raise UnsafeArchiveError(
                    f"{archive_file}: refusing to extract this model archive: member {member.name!r} {reason}, "
                    "so it would be written outside the extraction folder"
                )
        if hasattr(tarfile, "data_filter"):
            try:
                archive.extractall(folder, members=members, filter="data")
            except tarfile.FilterError as err:
                member = getattr(err, "tarinfo", None)
                name = member.name if member is not None else "?"
                raise UnsafeArchiveError(
                    f"{archive_file}: refusing to extract this model archive: member {name!r}: {err}"
                ) from None
        else:  # Python < 3.11.4: the checks above are all there is
            archive.extractall(folder, members=members)


def _patch_extracted_archive() -> None:
    from allennlp.models import archival

    if getattr(archival.extracted_archive, "_srcframework_safe", False):
        return

    @contextmanager
    def extracted_archive(resolved_archive_file, cleanup=True):
        note = stopped_archive_note(resolved_archive_file)
        if note:
            logger.warning(note)
        tempdir = tempfile.mkdtemp()
        try:
            archival.logger.info(f"extracting archive file {resolved_archive_file} to temp dir {tempdir}")
            safe_extract(resolved_archive_file, tempdir)
        except BaseException:
            shutil.rmtree(tempdir, ignore_errors=True)  # load_archive never learns its name
            raise
        try:
            yield tempdir
        finally:
            if cleanup:
                archival.logger.info(f"removing temporary unarchived model dir at {tempdir}")
                shutil.rmtree(tempdir, ignore_errors=True)

    extracted_archive._srcframework_safe = True
    archival.extracted_archive = extracted_archive
    APPLIED.append("archival.extracted_archive: refuses members that would land outside the folder")


def _patch_archive_model() -> None:
    from allennlp.commands import train as train_command
    from allennlp.models import archival
    import allennlp.models

    original = archival.archive_model
    if getattr(original, "_srcframework_atomic", False):
        return

    def archive_model(serialization_dir, weights=archival._DEFAULT_WEIGHTS, archive_path=None, include_in_archive=None):
        target = archive_path if archive_path is not None else os.path.join(serialization_dir, "model.tar.gz")
        if os.path.isdir(target):
            target = os.path.join(target, "model.tar.gz")
        descriptor, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp",
                                                 dir=os.path.dirname(os.path.abspath(target)))
        os.close(descriptor)
        try:
            original(serialization_dir, weights=weights, archive_path=temporary, include_in_archive=include_in_archive)
            os.chmod(temporary, 0o644)
            os.replace(temporary, target)
        except BaseException as error:
            if os.path.exists(temporary):
                os.remove(temporary)
            if is_disk_full(error):
                raise DiskFull(disk_full_message(target)) from error
            raise
        return target

    archive_model._srcframework_atomic = True
    archive_model.__wrapped__ = original
    archival.archive_model = archive_model
    allennlp.models.archive_model = archive_model
    train_command.archive_model = archive_model
    APPLIED.append("archival.archive_model: writes model.tar.gz under a temporary name, renamed when whole")


def _patch_dump_metrics() -> None:
    from allennlp.common import util
    from allennlp.evaluation import evaluator
    from allennlp.training import util as training_util

    original = util.dump_metrics
    if getattr(original, "_srcframework_atomic", False):
        return

    def dump_metrics(file_path, metrics, log=False):
        metrics_json = json.dumps(metrics, indent=2)
        if file_path:
            write_text_atomic(file_path, metrics_json)
        if log:
            util.logger.info("Metrics: %s", metrics_json)

    dump_metrics._srcframework_atomic = True
    dump_metrics.__wrapped__ = original
    for module in (util, evaluator, training_util):
        module.dump_metrics = dump_metrics
    APPLIED.append("util.dump_metrics: writes metrics files under a temporary name, renamed when whole")


_MISSING = object()


def _config_at(config: Any, dotted_key: str) -> Any:
    """The value at `dotted_key` of `config` (list items by index), as `with_overrides` finds it."""
    node = config
    for part in dotted_key.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def _compare_blocks(old: dict, new: dict, path: str, dropped: List[str], dotted: Dict[str, Any]) -> None:
    if "type" in new and new.get("type") != old.get("type"):
        return  # another component: the old keys were its predecessor's
    for key in old:
        if key not in new:
            dropped.append(f"{path}{key}")
    for key, value in new.items():
        if key in old and isinstance(old[key], dict) and isinstance(value, dict):
            _compare_blocks(old[key], value, f"{path}{key}.", dropped, dotted)
        else:
            dotted[f"{path}{key}"] = value


def dropping_overrides(original: dict, overrides: Dict[str, Any]) -> List[Tuple[str, List[str], Dict[str, Any]]]:
    """
    The overrides that replace a block of `original` (a dict) with a dict that lacks some of its
    keys, as AllenNLP applies an override whose key is not dotted. For each: its key, the keys it
    drops (relative to that block; a block inside it that loses keys counts too), and the dotted
    overrides that change only the values it gives. A block given another `type` is a new
    component, and is not counted.
    """
    found = []
    for key, value in overrides.items():
        old = _config_at(original, key)
        if not isinstance(old, dict) or not isinstance(value, dict):
            continue
        dropped: List[str] = []
        dotted: Dict[str, Any] = {}
        _compare_blocks(old, value, "", dropped, dotted)
        if dropped:
            found.append((key, dropped, {f"{key}.{inner}": inner_value for inner, inner_value in dotted.items()}))
    return found


def dropping_override_message(key: str, dropped: List[str], dotted: Dict[str, Any]) -> str:
    """One line: what the override of `key` drops and the dotted form to give instead."""
    return (
        f"the override {json.dumps(key)} replaces that whole block and drops its keys {', '.join(dropped)}; "
        f"to change only the keys it gives, pass them dotted: {json.dumps(dotted)}"
    )


def _patch_with_overrides() -> None:
    from allennlp.common import params as params_module

    original_function = params_module.with_overrides
    if getattr(original_function, "_srcframework_warns", False):
        return

    def with_overrides(original, overrides_dict, prefix=""):
        if not prefix and isinstance(original, dict):
            for key, dropped, dotted in dropping_overrides(original, overrides_dict):
                logger.warning(dropping_override_message(key, dropped, dotted))
        return original_function(original, overrides_dict, prefix)

    with_overrides._srcframework_warns = True
    with_overrides.__wrapped__ = original_function
    params_module.with_overrides = with_overrides
    APPLIED.append("params.with_overrides: warns of an override that drops keys of the block it replaces")


def apply() -> list:
    """Apply every needed adaptation once; returns the list of those applied."""
    if not APPLIED:
        _patch_reduce_on_plateau()
        _patch_extracted_archive()
        _patch_archive_model()
        _patch_dump_metrics()
        _patch_with_overrides()
        for item in APPLIED:
            logger.debug("srcframework.compat applied %s", item)
    return APPLIED
