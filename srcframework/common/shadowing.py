"""Whether `import srcframework` found this package, or a folder of the same name that hides it.

Run from the folder that holds the clone (the natural place, with `../shared` beside the clone),
a folder named `srcframework` in the working directory, the clone itself, has no `__init__.py`:
Python takes it for a namespace package, ahead of the editable install (whose finder comes after
the path's). Its submodules still import, through the install, but the package's `__init__`
never runs, so nothing registers, and every error after that (`span_qa is not a registered
model`) points elsewhere. `check_not_shadowed` tells it in one line, with what to do.
"""
import os
import sys
from typing import Optional

from srcframework.common.cli import running_allennlp_cli

PACKAGE = "srcframework"
PACKAGE_FOLDER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class ShadowedPackageError(ImportError):
    """`import srcframework` found a folder of that name that is not the package."""


def shadowing_message() -> Optional[str]:
    """The one line that says what hides the package and what to do; None when `srcframework` in
    `sys.modules` is this package (or not imported)."""
    module = sys.modules.get(PACKAGE)
    if module is None or getattr(module, "__file__", None):
        return None
    folders = [str(path) for path in getattr(module, "__path__", [])]
    found = ", ".join(folders) or "a folder"
    return (f"`import {PACKAGE}` found {found}, a folder without __init__.py (a clone seen from the folder that "
            f"holds it), not the package in {PACKAGE_FOLDER}, so no component is registered: run from inside the "
            "clone or from any other folder")


def check_not_shadowed() -> None:
    """When the package is hidden (`shadowing_message`): in the `allennlp` command line prints
    `error: MESSAGE` and exits with status 1 (no exception hook of ours is installed yet); in a
    program raises `ShadowedPackageError` with the message."""
    message = shadowing_message()
    if not message:
        return
    if running_allennlp_cli():
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(1)
    raise ShadowedPackageError(message)
