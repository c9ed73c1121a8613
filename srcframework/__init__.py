"""srcframework: question answering when the question does not arrive as clean text.

Importing the package registers its AllenNLP components (readers, encoders, span heads, models,
predictors, metrics, subcommands) and applies `srcframework.compat`.
"""
from srcframework import compat

compat.apply()

from srcframework import config_defaults  # noqa: E402

config_defaults.export()

from srcframework import commands, data, metrics, models, modules, noise, predictors, reports, speech, training  # noqa: E402,F401

__version__ = "0.1.0"

# third-party packages that declare the "srcframework" entry point add their components here; a
# plugin that cannot be used as installed (a name clash) stops every command but `list-plugins`,
# which reports it
from srcframework.plugins.manager import load_plugins  # noqa: E402

load_plugins(strict=commands.cli_errors.running_subcommand() != "list-plugins")
