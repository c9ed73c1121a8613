from srcframework.commands.accent_report import AccentReport
from srcframework.commands.list_plugins import ListPlugins
from srcframework.commands.noise import Noise
from srcframework.commands.noise_stats import NoiseStats
from srcframework.commands.squad_eval import SquadEval
