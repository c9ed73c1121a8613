"""
One-line errors for the `allennlp` command line.

A `DatasetError`, `StudyError`, `PluginError` or AllenNLP `ConfigurationError` that ends an
`allennlp` command is printed as one line, `error: MESSAGE`, on stderr, and the command exits with
status 1. Its traceback is printed only in debug mode: `SRCFRAMEWORK_DEBUG=1` in the environment,
or `--debug` as the first argument (`allennlp --debug evaluate ...`; it is removed before AllenNLP
parses the arguments). Any other exception keeps its full traceback.

The handler is a `sys.excepthook`, so it covers every subcommand (AllenNLP's own included: they
are bound before srcframework is imported, but their exceptions still end the process here). It is
installed by `srcframework.allennlp_plugin` (`install`), and only in a process started as the `allennlp`
command line, so that scripts and tests importing srcframework keep Python's behaviour. `allennlp
train` replaces `sys.excepthook` with its own (which logs every uncaught exception with its
traceback) in `prepare_global_logging`; that function is wrapped so that the one-line hook goes
back on top, deferring every other exception to AllenNLP's.

A command stopped by Ctrl-C or SIGTERM ends with one line instead of the `KeyboardInterrupt`
traceback: what is kept and how to go on (`stopped_message`; `allennlp train` gives its own,
`commands.allennlp_train`). Ctrl-C still ends the process with status 130.

A full disk (an `OSError` of `ENOSPC`, or the `DiskFull` of srcframework's own writers) is one
line too: the folder, the file and the bytes needed where known, and that what was there before is
kept.

Three more kinds of exception are bad input and get the one line too: a `ValueError` or
`TypeError` raised by the constructor (`__init__`) of a registered component itself, which is how
a component checks its parameters (the line names the component's class); AllenNLP's `TypeError`
for a config value of the wrong type (`Expected speakers.SPK1 to be a Mapping`); and a Jsonnet
error in a config file, shown as `config file FILE:LINE:COLUMN: what is wrong`.

Two of AllenNLP's own `ConfigurationError`s are reworded from what they were raised with: an
unknown registered name (`unknown sources.0.type 'keybord': did you mean keyboard? choices: ...`,
instead of the advice to use `--include-package`) and an unknown parameter (`KeyboardNoise got an
unknown parameter word_prob: did you mean word_probability? its parameters: word_probability`).
A third, a required key that is missing, gains the keys of its block that look like a misspelling
of it, which AllenNLP never reaches (`key "batch_size" is required at location
"data_loader.batch_sampler.": the block has the unknown key batchsize: did you mean batch_size?`).

AllenNLP's `Mismatched token keys: dict_keys([...]) and dict_keys([...])`, which a model given the
data of another reader raises (or the `RuntimeError` of `get_text_field_mask` given an audio
field), is reworded to name the field, what the model takes and what the
reader gave (`the model takes the question field as text (token keys token_characters, tokens),
but the reader gives it as audio (mask, waveform): ...`).

In the command line AllenNLP announces each plugin it imports at INFO level before any command
runs (`--help` included); those lines are kept only when the log level is DEBUG
(`ALLENNLP_DEBUG=1`, `ALLENNLP_LOG_LEVEL=DEBUG`).

A message longer than `MAX_MESSAGE` characters is cut to an excerpt: each long quoted value in it
(an `importstr` of a whole file that a config passes as a name) is shortened to its first
characters, then the middle of what is still too long is left out, saying how much.
"""
import difflib
import functools
import inspect
import logging
import os
import re
import sys
from typing import Optional, Tuple

from srcframework.common.cli import running_allennlp_cli, running_subcommand, subcommand  # noqa: F401
from srcframework.common.errors import did_you_mean
from srcframework.common.files import disk_full_message, is_disk_full

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


def debug_mode() -> bool:
    return os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no")


def one_line_error_types() -> Tuple[type, ...]:
    found = []
    for module_name, class_name in ONE_LINE_ERRORS:
        cls = getattr(sys.modules.get(module_name), class_name, None)
        if isinstance(cls, type):
            found.append(cls)
    return tuple(found)


MAX_MESSAGE = 800  # characters of an error line's message
MAX_LINE = 300  # characters kept of the first and last line of a long message of many lines
MAX_QUOTED = 60  # characters of one quoted value in a message that is too long
_QUOTED = re.compile(r"'[^']{%d,}'|\"[^\"]{%d,}\"" % (MAX_QUOTED + 1, MAX_QUOTED + 1))
JSONNET_ERRORS = ("STATIC ERROR:", "RUNTIME ERROR:")


def _cut(text: str, limit: int) -> str:
    """`text`, or its head and tail with the middle left out when it is longer than `limit`."""
    if len(text) <= limit:
        return text
    head, tail = (2 * limit) // 3, limit // 4
    return f"{text[:head]} ... [{len(text) - head - tail:,} characters left out] ... {text[-tail:]}"


def excerpt(message: str, limit: int = MAX_MESSAGE) -> str:
    """The lines of `message` joined by spaces, if that has at most `limit` characters. A longer
    message (say one that quotes a whole file a config read with `importstr`) is cut to an excerpt:
    of more than two lines only the first and the last are kept (each to `MAX_LINE` characters),
    quoted values of more than `MAX_QUOTED` characters are shortened, and what is still too long
    loses its middle; each cut says how much it left out."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    text = " ".join(lines)
    if len(text) <= limit:
        return text
    if len(lines) > 2:
        dropped = sum(len(line) for line in lines[1:-1])
        text = (f"{_cut(lines[0], MAX_LINE)} ... [{len(lines) - 2:,} lines, {dropped:,} characters left out] ... "
                f"{_cut(lines[-1], MAX_LINE)}")

    def shorten(match) -> str:
        quoted = match.group(0)
        return f"{quoted[:MAX_QUOTED // 2]}...{quoted[0]} [{len(quoted) - 2:,} characters]"

    return _cut(_QUOTED.sub(shorten, text), limit)


def one_line(error: BaseException, prefix: str = "") -> str:
    """`error: MESSAGE` with the message's lines joined (and cut to an `excerpt`); Jsonnet error
    text in it is put as `FILE:LINE:COLUMN: what is wrong` (`jsonnet_message`)."""
    return f"error: {prefix}{excerpt(jsonnet_message(str(error))) or type(error).__name__}"


def _last_frame(traceback):
    while traceback is not None and traceback.tb_next is not None:
        traceback = traceback.tb_next
    return None if traceback is None else traceback.tb_frame


def constructor_check(error: BaseException, traceback) -> Optional[str]:
    """What to put before the message of a parameter check, or None for another error: the class
    name of the registered component whose `__init__` raised `error` (a `ValueError` or
    `TypeError`) itself, or `config: ` for AllenNLP's own check that a config value has the type
    its argument needs (a `TypeError` of `construct_arg`)."""
    if not isinstance(error, (ValueError, TypeError)):
        return None
    frame = _last_frame(traceback)
    if frame is None:
        return None
    if frame.f_code.co_name == "construct_arg" and frame.f_globals.get("__name__") == "allennlp.common.from_params":
        return "config: " if isinstance(error, TypeError) else None
    if frame.f_code.co_name != "__init__":
        return None
    component = frame.f_locals.get("self")
    from_params = getattr(sys.modules.get("allennlp.common.from_params"), "FromParams", None)
    if from_params is None or not isinstance(component, from_params):
        return None
    return f"{type(component).__name__}: "


def jsonnet_error(error: BaseException) -> bool:
    """Whether `error` is Jsonnet's, raised while a config file was evaluated."""
    return isinstance(error, RuntimeError) and str(error).lstrip().startswith(JSONNET_ERRORS)


_JSONNET_ERROR = re.compile(r"(STATIC|RUNTIME) ERROR: ")
_JSONNET_PLACE = re.compile(r"^(.+?:(?:\d+:\d+(?:-\d+)?|\(\d+:\d+\)-\(\d+:\d+\)))(?::\s+|\t|$)(.*)$")


def jsonnet_message(message: str) -> str:
    """`message` with the Jsonnet error text in it (from `STATIC ERROR: ` or `RUNTIME ERROR: ` on)
    put as `FILE:LINE:COLUMN: what is wrong`: a static error names its place first already; a
    runtime error's place is the first of its stack trace lines (the tab-indented ones below)."""
    found = _JSONNET_ERROR.search(message)
    if found is None:
        return message
    before, kind, text = message[: found.start()], found.group(1), message[found.end():]
    lines = text.splitlines()
    what = [line.strip() for line in lines if line.strip() and not line.startswith("\t")]
    if kind == "STATIC" or not what:
        return before + " ".join(what or [text.strip()])
    for line in lines:
        place = _JSONNET_PLACE.match(line.strip()) if line.startswith("\t") else None
        if place is not None:
            return f"{before}{place.group(1)}: {' '.join(what)}"
    return before + " ".join(what)


def _frame_named(traceback, module: str, function: str):
    """The innermost frame of `traceback` running `module`.`function`, or None."""
    found = None
    while traceback is not None:
        frame = traceback.tb_frame
        if frame.f_code.co_name == function and frame.f_globals.get("__name__") == module:
            found = frame
        traceback = traceback.tb_next
    return found


def _names(names) -> str:
    return ", ".join(sorted(str(name) for name in names)) or "none"


def unknown_name_message(traceback) -> Optional[str]:
    """For AllenNLP's error of an unknown registered name (raised by `Params.pop_choice` or
    `Registrable.resolve_class_name`), a line that says which name is unknown where, the closest
    known one and the choices; None for any other error."""
    frame = _frame_named(traceback, "allennlp.common.params", "pop_choice")
    if frame is not None and "key_str" in frame.f_locals:
        found, where, choices = frame.f_locals.get("value"), frame.f_locals["key_str"], frame.f_locals.get("choices")
    else:
        frame = _frame_named(traceback, "allennlp.common.registrable", "resolve_class_name")
        if frame is None or "available" not in frame.f_locals:
            return None
        found, choices = frame.f_locals.get("name"), frame.f_locals["available"]
        where = f"{getattr(frame.f_locals.get('cls'), '__name__', 'registered')} name"
    hint = did_you_mean(found, choices or [])
    return f"unknown {where} {found!r}: {hint + ' ' if hint else ''}choices: {_names(choices or [])}"


def unknown_parameter_message(traceback) -> Optional[str]:
    """For AllenNLP's error of parameters a component does not take (`Params.assert_empty` called
    by `create_kwargs`), a line that names the component, each unknown parameter with the closest
    known one, and the parameters it takes; None for any other error."""
    empty = _frame_named(traceback, "allennlp.common.params", "assert_empty")
    caller = empty.f_back if empty is not None else None
    if caller is None or caller.f_code.co_name != "create_kwargs" or "parameters" not in caller.f_locals:
        return None
    known = [
        name for name, parameter in caller.f_locals["parameters"].items()
        if name != "self" and parameter.kind not in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)
    ]
    params = empty.f_locals.get("self")
    extra = list(getattr(params, "params", None) or {})
    if not extra:
        return None
    history = getattr(params, "history", "")
    unknown = []
    for name in extra:
        hint = did_you_mean(name, known)
        unknown.append(f"{history}{name}" + (f" ({hint})" if hint else ""))
    component = getattr(caller.f_locals.get("cls"), "__name__", empty.f_locals.get("class_name", "the component"))
    noun = "an unknown parameter" if len(unknown) == 1 else "unknown parameters"
    return f"{component} got {noun} {', '.join(unknown)}; its parameters: {_names(known)}"


# the subcommands whose work is journaled or cached: run again, they resume where they stopped
RESUMABLE = ("noise", "synthesize-speech", "transcribe", "cascade", "compare")


def stopped_message(how: str, command: Optional[str] = None) -> str:
    """The line of a command stopped by `how` (Ctrl-C, SIGTERM) that gave no line of its own."""
    command = command or running_subcommand()
    name = f"allennlp {command}" if command else "the command"
    if command in RESUMABLE:
        return f"stopped by {how}: {name} keeps what it finished, and the same command resumes it"
    return f"stopped by {how}: {name} did not finish, so what it was writing is incomplete or not written"


def missing_key_message(error: BaseException, traceback) -> Optional[str]:
    """For AllenNLP's error of a required key that is missing (`Params.pop`: `key "batch_size" is
    required at location "data_loader.batch_sampler."`), the message with the keys of that block
    that look like a misspelling of it (`... the block has the unknown key batchsize: did you mean
    batch_size?`); None for any other error, or when no key there is close."""
    frame = _frame_named(traceback, "allennlp.common.params", "pop")
    if frame is None or "key" not in frame.f_locals:
        return None
    key, params = frame.f_locals["key"], frame.f_locals.get("self")
    remaining = [str(name) for name in (getattr(params, "params", None) or {})]
    close = difflib.get_close_matches(str(key), remaining, n=3, cutoff=0.6)
    if not close:
        return None
    noun = "the unknown key" if len(close) == 1 else "the unknown keys"
    return f"{error}: the block has {noun} {', '.join(close)}: did you mean {key}?"


_EMBEDDER_MODULE = "allennlp.modules.text_field_embedders.basic_text_field_embedder"


def _field_tensors(traceback):
    """`(frame, tensors, token embedders)` where a text field's tensors reached AllenNLP's text
    field code (`BasicTextFieldEmbedder.forward`, or `get_text_field_mask` called before it by a
    text encoder), or None."""
    frame = _frame_named(traceback, _EMBEDDER_MODULE, "forward")
    if frame is not None and "text_field_input" in frame.f_locals:
        return frame, frame.f_locals["text_field_input"], getattr(frame.f_locals.get("self"), "_token_embedders", None)
    frame = _frame_named(traceback, "allennlp.nn.util", "get_text_field_mask")
    if frame is None or "text_field_tensors" not in frame.f_locals:
        return None
    caller, embedders = frame.f_back, None
    while caller is not None and embedders is None:
        embedder = getattr(caller.f_locals.get("self"), "text_field_embedder", None)
        embedders = getattr(embedder, "_token_embedders", None)
        caller = caller.f_back
    return frame, frame.f_locals["text_field_tensors"], embedders


def mismatched_field_message(traceback) -> Optional[str]:
    """For a model given a field that is not the one it embeds (AllenNLP's `Mismatched token keys:
    dict_keys([...]) and dict_keys([...])`, or the `RuntimeError` of `get_text_field_mask` given
    an audio field), a line that names the field (the model's argument that holds those tensors),
    what the model takes and what the reader gave, and what to do; None for any other error."""
    found = _field_tensors(traceback)
    if found is None:
        return None
    frame, given, embedders = found
    if not isinstance(given, dict) or embedders is None or sorted(given) == sorted(embedders):
        return None
    field = None
    caller = frame.f_back
    while caller is not None:  # the outermost name the caller frames give these tensors: the model's argument
        for name, value in caller.f_locals.items():
            if value is given and name not in ("self", "text_field_input", "text_field_tensors", "field_tensors"):
                field = name
        caller = caller.f_back
    what = f"the {field} field" if field else "a field"
    expected, keys = _names(embedders.keys()), _names(given.keys())
    if "waveform" in given:
        return (f"the model takes {what} as text (token keys {expected}), but the reader gives it as audio "
                f"({keys}): read this data with a text reader (the archive's own), or use a model whose "
                f"{field or 'question'} encoder takes audio")
    return (f"the model embeds {what} with the token keys {expected}, but the reader gives {keys}: give the "
            "reader the token_indexers the model was trained with (the archive's dataset_reader)")


def disk_full_text(error: OSError) -> str:
    """The line of a full disk whose file the error does not name."""
    return (f"no space left on the device ({error.strerror or 'ENOSPC'}) while writing: what was written before is "
            "kept; free some space and run the command again")


def excepthook(kind, error, traceback, fallback=None) -> None:
    """Prints a one-line error for the bad-input errors, and one line for a command stopped by
    Ctrl-C or SIGTERM (the line the stopped work gave, `allennlp_train.STOPPED_ATTRIBUTE`, or
    `stopped_message`), outside debug mode; otherwise defers to `fallback` (Python's own hook by
    default)."""
    if not debug_mode():
        from srcframework.commands.allennlp_train import STOPPED_ATTRIBUTE, stop_name

        how = stop_name(error)
        if how is not None:
            print(getattr(error, STOPPED_ATTRIBUTE, None) or stopped_message(how), file=sys.stderr)
            return
        if isinstance(error, one_line_error_types()):
            reworded = (unknown_name_message(traceback) or unknown_parameter_message(traceback)
                        or missing_key_message(error, traceback) or mismatched_field_message(traceback))
            print(f"error: {excerpt(reworded)}" if reworded else one_line(error), file=sys.stderr)
            return
        mismatch = mismatched_field_message(traceback) if isinstance(error, RuntimeError) else None
        if mismatch:
            print(f"error: {excerpt(mismatch)}", file=sys.stderr)
            return
        if is_disk_full(error):  # a write that did not go through `common.files` (AllenNLP's, a library's)
            where = error.filename if isinstance(error.filename, str) else None
            print(f"error: {excerpt(disk_full_message(where) if where else disk_full_text(error))}", file=sys.stderr)
            return
        prefix = constructor_check(error, traceback)
        if prefix is not None:
            print(one_line(error, prefix), file=sys.stderr)
            return
        if jsonnet_error(error):
            print(one_line(error, "config file "), file=sys.stderr)
            return
    (fallback or sys.__excepthook__)(kind, error, traceback)


def install(force: bool = False) -> bool:
    """
    In the `allennlp` command line (or with `force`), removes a leading `--debug` from `sys.argv`
    (setting `SRCFRAMEWORK_DEBUG=1`, which worker processes inherit) and installs `excepthook`.
    Outside debug mode it also cuts AllenNLP's log lines of config values (`dataset_reader.type =
    ...`) to an `excerpt`, so that a file a config read with `importstr` is not logged whole.
    Returns whether it is installed.
    """
    global _installed
    if _installed or not (force or running_allennlp_cli()):
        return _installed
    if len(sys.argv) > 1 and sys.argv[1] == DEBUG_FLAG:
        del sys.argv[1]
        os.environ[DEBUG_ENV] = "1"
    _hook_on_top()
    if not debug_mode():
        logging.getLogger("allennlp.common.params").addFilter(ExcerptFilter())
    logging.getLogger("allennlp.common.plugins").addFilter(PluginAnnouncementFilter())
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


class ExcerptFilter(logging.Filter):
    """Cuts a log record's message to an `excerpt` of `MAX_MESSAGE` characters."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if len(message) > MAX_MESSAGE:
            record.msg, record.args = excerpt(message), ()
        return True


class PluginAnnouncementFilter(logging.Filter):
    """Drops AllenNLP's INFO line for each plugin it imported (`Plugin srcframework available`)
    unless the root logger is at DEBUG; errors about plugins pass."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.INFO or record.msg != "Plugin %s available":
            return True
        return logging.getLogger().isEnabledFor(logging.DEBUG)


def _hook_on_top() -> None:
    if getattr(sys.excepthook, "_srcframework_one_line", False):
        return
    hook = functools.partial(excepthook, fallback=sys.excepthook)
    hook._srcframework_one_line = True
    sys.excepthook = hook
