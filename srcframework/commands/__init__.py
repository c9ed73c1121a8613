# first, so that an error raised while the other commands import is already one line
from srcframework.commands import cli_errors

cli_errors.install()

from srcframework.commands import allennlp_outputs  # noqa: E402

allennlp_outputs.install()

from srcframework.commands.accent_report import AccentReport  # noqa: E402
from srcframework.commands.cascade import Cascade  # noqa: E402
from srcframework.commands.compare import Compare  # noqa: E402
from srcframework.commands.list_noise import ListNoise  # noqa: E402
from srcframework.commands.list_plugins import ListPlugins  # noqa: E402
from srcframework.commands.models import Models  # noqa: E402
from srcframework.commands.noise import Noise  # noqa: E402
from srcframework.commands.noise_stats import NoiseStats  # noqa: E402
from srcframework.commands.squad_eval import SquadEval  # noqa: E402
from srcframework.commands.synthesize_speech import SynthesizeSpeech  # noqa: E402
from srcframework.commands.transcribe import Transcribe  # noqa: E402
