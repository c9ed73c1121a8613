"""The error of a bad argument, parameter or input state that the user can fix.

`InputError` is both an AllenNLP `ConfigurationError`, so that the `allennlp` command line prints
it as one line (`srcframework.commands.cli_errors`), and a `ValueError`, so that callers catching
`ValueError` (as they did before it existed) still catch it. Constructors of registered components
raise it for out-of-range or unknown parameters (`word_probability: 7`, an unknown voice), and
resumable jobs raise it when the journal they find belongs to another job.

`did_you_mean` and `json_error_text` word two common parts of such messages: the closest of the
known names, and where and why a JSON text failed to parse; `without_path` takes a file's name out
of a message that will be printed after it.
"""
import difflib
import json
from typing import Iterable

from allennlp.common.checks import ConfigurationError


class InputError(ConfigurationError, ValueError):
    """A bad argument, parameter or input state; the message says what is wrong and with what."""


class InputFileNotFound(InputError, FileNotFoundError):
    """A file that a parameter names does not exist; still a `FileNotFoundError` to callers."""


class InputTypeError(InputError, TypeError):
    """A parameter of the wrong kind (a string where a component goes); still a `TypeError`."""


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """`did you mean keyboard?` for the one of `choices` closest to `name`, or "" when none is close."""
    close = difflib.get_close_matches(str(name), [str(choice) for choice in choices], n=1, cutoff=0.6)
    return f"did you mean {close[0]}?" if close else ""


def without_path(message: str, path) -> str:
    """An error message that names `path`, without that name: for a caller that puts the path in
    front itself (a `DatasetError`, a `PATH: error` listing), so the path is printed once.
    `audio file is silent (...): PATH` → `audio file is silent (...)`; `cannot read audio file PATH:
    why` → `cannot read audio file: why`; `PATH: why` → `why`."""
    path = str(path)
    if message.startswith(f"{path}:"):
        return message[len(path) + 1:].strip()
    if message.endswith(f": {path}"):
        return message[: -len(path) - 2]
    return message.replace(f" {path}:", ":", 1)


def json_error_text(error: json.JSONDecodeError, with_line: bool = True) -> str:
    """Where and why JSON failed to parse, as a whole phrase: `unterminated string starting at line
    1, column 10` (the decoder's own `msg`, "Unterminated string starting at", stops mid-sentence).
    Without `with_line` only the column is given (for a text that is one line of a file)."""
    message = error.msg[:1].lower() + error.msg[1:]
    joint = " " if message.endswith(" at") else " at "
    place = f"line {error.lineno}, column {error.colno}" if with_line else f"column {error.colno}"
    return f"{message}{joint}{place}"
