"""srcframework: question answering when the question does not arrive as clean text.

Importing the package registers its AllenNLP components (readers, encoders, span heads, models,
predictors, metrics, callbacks, subcommands) and does nothing else: no patch of AllenNLP, no
environment variable, no exception hook, no third-party plugin. The `allennlp` command line gets
those from `srcframework.allennlp_plugin`, the module its plugins file names.
"""
from srcframework import commands, data, metrics, models, modules, noise, predictors, recipes, reports, speech, training  # noqa: F401

__version__ = "0.1.0"
