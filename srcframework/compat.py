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
  anything is written, and extracts the rest with ``tarfile``'s ``"data"`` filter.
"""
import inspect
import logging
import os
import shutil
import tarfile
import tempfile
from contextlib import contextmanager

import torch
from allennlp.common.checks import ConfigurationError

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
    filter checks every member again as it is written (links through links included).

    # Raises

    UnsafeArchiveError
        Names the archive and the offending member.
    """
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


def apply() -> list:
    """Apply every needed adaptation once; returns the list of those applied."""
    if not APPLIED:
        _patch_reduce_on_plateau()
        _patch_extracted_archive()
        for item in APPLIED:
            logger.debug("srcframework.compat applied %s", item)
    return APPLIED
