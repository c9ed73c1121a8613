"""
Rules for AllenNLP's own `allennlp train`: a stopped training ends with one line that says where it
stopped and how to resume it, and a training that fails or is stopped before its first epoch ends
leaves no serialization folder to trip over.

`install()` (called by `srcframework.allennlp_plugin.activate()`) wraps
`allennlp.commands.train.train_model` once (`train_model_from_file`, and so `allennlp train`, call
it through the module). When the call raises:

- and no epoch has finished, the run was not `--recover`ed and the serialization folder was made
  by this call (it was missing or empty before, or `-f` cleared it), the folder is removed: the
  error line says what went wrong, and the same command starts again (AllenNLP's own rerun would
  stop at "already exists and is not empty");
- on Ctrl-C (`KeyboardInterrupt`) or SIGTERM (AllenNLP's `SigTermReceived`), the exception gets a
  `srcframework_stopped` line, which the `allennlp` command line prints instead of the traceback
  (`commands.cli_errors`): after an epoch, `stopped by Ctrl-C in epoch 4 of 8 of runs/x: 3
  finished epochs are kept, and runs/x/model.tar.gz holds the best of them (epoch 2), not a
  finished model; resume with: allennlp train ... --recover`; before one, that nothing was kept.
"""
import functools
import inspect
import logging
import os
import shlex
import shutil
import sys
from typing import Optional

from srcframework.common.cli import running_allennlp_cli
from srcframework.common.training_runs import ARCHIVE_NAME, resume_command, run_state

logger = logging.getLogger(__name__)

STOPPED_ATTRIBUTE = "srcframework_stopped"
_INSTALLED = False


def stop_name(error: BaseException) -> Optional[str]:
    """`Ctrl-C` or `SIGTERM` for the exceptions that stop a command from outside, else None."""
    if isinstance(error, KeyboardInterrupt):
        return "Ctrl-C"
    sigterm = getattr(sys.modules.get("allennlp.common.util"), "SigTermReceived", None)
    if isinstance(sigterm, type) and isinstance(error, sigterm):
        return "SIGTERM"
    return None


def _has_files(folder: str) -> bool:
    try:
        return bool(os.listdir(folder))
    except OSError:
        return False


def same_command_with_recover(argv: list) -> Optional[str]:
    """The `allennlp train` command line `argv` (`sys.argv`) with `-f` left out and `--recover`
    added, or None when `argv` is not an `allennlp train` command line."""
    arguments = list(argv[1:])
    if "train" not in arguments:
        return None
    arguments = [arg for arg in arguments if arg not in ("-f", "--force")]
    if "-r" not in arguments and "--recover" not in arguments:
        arguments.append("--recover")
    return "allennlp " + shlex.join(arguments)


def stopped_line(how: str, folder: str, removed: bool, argv: Optional[list] = None) -> str:
    """The one line of a training stopped (`how`: Ctrl-C, SIGTERM) with its serialization `folder`
    as it is now; `removed` says that what the run wrote there was removed. The resume command is
    `argv` (default: this process's `allennlp train` command line) with `--recover`, or the
    folder's saved config with `--recover` outside the command line."""
    if removed:
        return (f"stopped by {how} before the first epoch of {folder} ended: nothing was kept (what it wrote "
                "there is removed); the same command starts again")
    state = run_state(folder)
    if argv is None and running_allennlp_cli():
        argv = sys.argv
    command = (same_command_with_recover(argv) if argv is not None else None) or resume_command(folder)
    if not state.epochs_done:
        return f"stopped by {how} before an epoch of {folder} ended: no new epoch was kept; resume with: {command}"
    archive = os.path.join(folder, ARCHIVE_NAME)
    holds = (f", and {archive} holds the best of them{f' (epoch {state.best_epoch})' if state.best_epoch else ''},"
             " not a finished model") if os.path.isfile(archive) else ""
    where = f"epoch {state.epochs_done + 1}" + (f" of {state.num_epochs}" if state.num_epochs else "")
    kept = "1 finished epoch is" if state.epochs_done == 1 else f"{state.epochs_done} finished epochs are"
    return f"stopped by {how} in {where} of {folder}: {kept} kept{holds}; resume with: {command}"


def remove_what_it_wrote(folder: str, existed: bool) -> bool:
    """Removes `folder` (or, where it `existed` empty before the run, what is in it); returns
    whether nothing is left of the run."""
    if not existed:
        shutil.rmtree(folder, ignore_errors=True)
        return not os.path.exists(folder)
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                os.remove(path)
            except OSError:
                pass
    return not _has_files(folder)


def after_failure(error: BaseException, folder: str, recover: bool, force: bool, had_files: bool,
                  existed: bool = False) -> bool:
    """Removes what a run that failed or was stopped before its first epoch ended wrote in its
    serialization folder, where the folder was missing or empty before (or `force` cleared it);
    gives a stopped run's exception its one line. Returns whether it removed it."""
    removed = False
    if not recover and (force or not had_files) and os.path.isdir(folder) and run_state(folder).epochs_done == 0:
        removed = remove_what_it_wrote(folder, existed=existed and not force)
        if removed:
            logger.info("removed what the training wrote in %s: it stopped before its first epoch ended", folder)
    how = stop_name(error)
    if how is not None:
        try:
            setattr(error, STOPPED_ATTRIBUTE, stopped_line(how, folder, removed))
        except Exception:  # an exception without a __dict__: the traceback stays
            pass
    return removed


def install() -> bool:
    """Wraps `train_model` once (see the module docstring); returns whether it did now."""
    global _INSTALLED
    if _INSTALLED:
        return False
    from allennlp.commands import train as train_module

    original = train_module.train_model
    signature = inspect.signature(original)

    @functools.wraps(original)
    def train_model(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        folder = os.fspath(bound.arguments["serialization_dir"])
        existed, had_files = os.path.isdir(folder), _has_files(folder)
        try:
            return original(*args, **kwargs)
        except BaseException as error:
            after_failure(error, folder, recover=bool(bound.arguments["recover"]),
                          force=bool(bound.arguments["force"]), had_files=had_files, existed=existed)
            raise

    train_model._srcframework_original = original
    train_module.train_model = train_model
    _INSTALLED = True
    return True
