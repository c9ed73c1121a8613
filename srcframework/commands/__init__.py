# the one-line error handler and the output-path checks are installed by
# srcframework.allennlp_plugin, not on import
from srcframework.commands import allennlp_outputs, cli_errors  # noqa: F401
from srcframework.commands.accent_report import AccentReport  # noqa: E402
from srcframework.commands.cascade import Cascade  # noqa: E402
from srcframework.commands.compare import Compare  # noqa: E402
from srcframework.commands.list_noise import ListNoise  # noqa: E402
from srcframework.commands.list_plugins import ListPlugins  # noqa: E402
from srcframework.commands.models import Models  # noqa: E402
from srcframework.commands.noise import Noise  # noqa: E402
from srcframework.commands.noise_stats import NoiseStats  # noqa: E402
from srcframework.commands.power import Power  # noqa: E402
from srcframework.commands.snapshot import Snapshot  # noqa: E402
from srcframework.commands.squad_eval import SquadEval  # noqa: E402
from srcframework.commands.synthesize_speech import SynthesizeSpeech  # noqa: E402
from srcframework.commands.training_curve import TrainingCurveCommand  # noqa: E402
from srcframework.commands.transcribe import Transcribe  # noqa: E402
from srcframework.commands.tune_ctc_decoder import TuneCtcDecoder  # noqa: E402
from srcframework.commands.word_lm import WordLm  # noqa: E402
from srcframework.commands.recipe import RecipeCommand  # noqa: E402
