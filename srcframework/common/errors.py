"""The error of a bad argument, parameter or input state that the user can fix.

`InputError` is both an AllenNLP `ConfigurationError`, so that the `allennlp` command line prints
it as one line (`srcframework.commands.cli_errors`), and a `ValueError`, so that callers catching
`ValueError` (as they did before it existed) still catch it. Constructors of registered components
raise it for out-of-range or unknown parameters (`word_probability: 7`, an unknown voice), and
resumable jobs raise it when the journal they find belongs to another job.
"""
from allennlp.common.checks import ConfigurationError


class InputError(ConfigurationError, ValueError):
    """A bad argument, parameter or input state; the message says what is wrong and with what."""


class InputFileNotFound(InputError, FileNotFoundError):
    """A file that a parameter names does not exist; still a `FileNotFoundError` to callers."""


class InputTypeError(InputError, TypeError):
    """A parameter of the wrong kind (a string where a component goes); still a `TypeError`."""
