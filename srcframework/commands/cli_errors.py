"""
One-line errors for the `allennlp` command line.

A `DatasetError`, `StudyError`, `PluginError` or AllenNLP `ConfigurationError` that ends an
`allennlp` command is printed as one line, `error: MESSAGE`, on stderr, and the command exits with
status 1. Its traceback is printed only in debug mode: `SRCFRAMEWORK_DEBUG=1` in the environment,
or `--debug` as the first argument (`allennlp --debug evaluate ...`; it is removed before AllenNLP
parses the arguments). Any other exception keeps its full traceback.

The handler is a `sys.excepthook`, so it covers every subcommand (AllenNLP's own included: they
are bound before srcframework is imported, but their exceptions still end the process here). It is
installed on import of `srcframework.commands`, and only in a process started as the `allennlp`
command line, so that scripts and tests importing srcframework keep Python's behaviour. `allennlp
train` replaces `sys.excepthook` with its own (which logs every uncaught exception with its
traceback) in `prepare_global_logging`; that function is wrapped so that the one-line hook goes
back on top, deferring every other exception to AllenNLP's.
"""
import functools
import os
import sys
from typing import Optional, Tuple

DEBUG_ENV = "SRCFRAMEWORK_DEBUG"
DEBUG_FLAG = "--debug"

# (module, class): the errors that mean "bad input, here is what to fix"; looked up in
# sys.modules, since an exception of a class never imported cannot have been raised
ONE_LINE_ERRORS = (
    ("srcframework.data.errors", "DatasetError"),
    ("srcframework.studies.study", "StudyError"),
    ("srcframework.plugins.manager", "PluginError"),
    ("allennlp.common.checks", "ConfigurationError"),
)

_installed = False


def running_allennlp_cli(argv: Optional[list] = None) -> bool:
    """Whether this process is the `allennlp` command line (`allennlp ...` or `python -m allennlp`)."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name == "allennlp.__main__":
        return True
    argv = sys.argv if argv is None else argv
    return bool(argv) and os.path.basename(argv[0]) == "allennlp"


def subcommand(argv: Optional[list] = None) -> Optional[str]:
    """The subcommand of an `allennlp` command line (its first argument not starting with `-`)."""
    argv = sys.argv if argv is None else argv
    return next((arg for arg in argv[1:] if not arg.startswith("-")), None)


def running_subcommand() -> Optional[str]:
    """The subcommand when this process is the `allennlp` command line, else None."""
    return subcommand() if running_allennlp_cli() else None


def debug_mode() -> bool:
    return os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no")


def one_line_error_types() -> Tuple[type, ...]:
    found = []
    for module_name, class_name in ONE_LINE_ERRORS:
        cls = getattr(sys.modules.get(module_name), class_name, None)
        if isinstance(cls, type):
            found.append(cls)
    return tuple(found)


def one_line(error: BaseException) -> str:
    """`error: MESSAGE` with the message's lines joined."""
    message = " ".join(line.strip() for line in str(error).strip().splitlines() if line.strip())
    return f"error: {message or type(error).__name__}"


def excepthook(kind, error, traceback, fallback=None) -> None:
    """Prints a one-line error for the bad-input errors outside debug mode; otherwise defers to
    `fallback` (Python's own hook by default)."""
    if not debug_mode() and isinstance(error, one_line_error_types()):
        print(one_line(error), file=sys.stderr)
        return
    (fallback or sys.__excepthook__)(kind, error, traceback)


def install(force: bool = False) -> bool:
    """
    In the `allennlp` command line (or with `force`), removes a leading `--debug` from `sys.argv`
    (setting `SRCFRAMEWORK_DEBUG=1`, which worker processes inherit) and installs `excepthook`.
    Returns whether it is installed.
    """
    global _installed
    if _installed or not (force or running_allennlp_cli()):
        return _installed
    if len(sys.argv) > 1 and sys.argv[1] == DEBUG_FLAG:
        del sys.argv[1]
        os.environ[DEBUG_ENV] = "1"
    _hook_on_top()
    from allennlp.common import logging as common_logging

    prepare = common_logging.prepare_global_logging

    @functools.wraps(prepare)
    def prepare_global_logging(*args, **kwargs):
        result = prepare(*args, **kwargs)
        _hook_on_top()
        return result

    common_logging.prepare_global_logging = prepare_global_logging
    _installed = True
    return True


def _hook_on_top() -> None:
    if getattr(sys.excepthook, "_srcframework_one_line", False):
        return
    hook = functools.partial(excepthook, fallback=sys.excepthook)
    hook._srcframework_one_line = True
    sys.excepthook = hook
