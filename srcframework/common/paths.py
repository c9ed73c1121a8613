"""Checks on output paths, made before a command does any work, so that a typo in an output path
costs a one-line error and not a finished run that cannot be saved."""
import os
import tempfile

from allennlp.common.checks import ConfigurationError


def _probe_writable(folder: str, what: str, path: str) -> None:
    """Creates and removes a file in `folder`: the only test that holds for root, read-only file
    systems and network mounts alike."""
    try:
        descriptor, probe = tempfile.mkstemp(prefix=".write-check-", dir=folder)
    except OSError as error:
        raise ConfigurationError(f"{what} {path}: cannot write in the folder {folder} ({error.strerror})") from None
    os.close(descriptor)
    os.remove(probe)


def check_output_path(path: str, what: str, is_dir: bool = False) -> None:
    """
    Raises a one-line `ConfigurationError` naming `what` and `path` unless the command can write
    there.

    # Parameters

    path : `str`
    what : `str`
        What the path is for, as the user would call it ("transcribe output file").
    is_dir : `bool`, optional (default = `False`)
        `False`: `path` is a file. Its folder must exist and be writable, and `path` must not be a
        folder. `True`: `path` is a folder the command writes into. It must be a writable folder,
        or not exist yet with its nearest existing parent a writable folder (the command creates
        it); a file in the way is an error.
    """
    path = os.fspath(path)
    if not path:
        raise ConfigurationError(f"{what}: the path is empty")
    absolute = os.path.abspath(path)
    if not is_dir:
        if os.path.isdir(absolute):
            raise ConfigurationError(f"{what} {path} is a folder, not a file")
        folder = os.path.dirname(absolute)
        if not os.path.exists(folder):
            raise ConfigurationError(f"{what} {path}: the folder {folder} does not exist")
        if not os.path.isdir(folder):
            raise ConfigurationError(f"{what} {path}: {folder} is a file, not a folder")
        _probe_writable(folder, what, path)
        return
    if os.path.exists(absolute) and not os.path.isdir(absolute):
        raise ConfigurationError(f"{what} {path} is a file, not a folder")
    existing = absolute
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise ConfigurationError(f"{what} {path}: {existing} is a file, not a folder")
    _probe_writable(existing, what, path)
