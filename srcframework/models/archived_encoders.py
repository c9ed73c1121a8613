"""
A model archive that carries the config of each pretrained encoder folder its config names, so that
it loads on a machine without that folder.

A config names a pretrained encoder by `model_name` (a field encoder's folder written by
`save_pretrained`, such as the CTC SpeechT5 pretrained here, `runs/speecht5_ctc/speecht5_ctc`).
Training reads the folder's weights; a trained model's `weights.th` holds every weight anyway, so
loading it needs only the folder's `config.json` (the architecture). `archived_members` gives those
files, as `fta/<where>/config.json` (`where`: the dotted place of the `model_name` in the config,
such as `model.question_encoder`), for `allennlp models release` to put in the released archive;
`point_at_archived` makes a loading model build each such encoder from its archived config alone
(`model_name` the archived folder, `load_weights` false). A hub name or a folder without
`config.json` is left as it is.

Only the `model` part of the config is carried: a dataset reader that reads a folder (the
`speecht5` token indexer's tokenizer) still needs it. The config copied is the folder's at the
release: a folder trained again with another architecture since would not fit the weights.
"""
import os
from typing import Any, Dict, Iterator, Tuple

ARCHIVED = "fta"
CONFIG = "config.json"


def _model_names(params: Any, where: str) -> Iterator[Tuple[str, Dict]]:
    """`(dotted place, the dict that holds it)` of each `model_name` string under `params`."""
    if isinstance(params, dict):
        if isinstance(params.get("model_name"), str):
            yield where, params
        for key, value in params.items():
            yield from _model_names(value, f"{where}.{key}")
    elif isinstance(params, list):
        for index, value in enumerate(params):
            yield from _model_names(value, f"{where}.{index}")


def archived_members(config: Dict, root: str = ".") -> Dict[str, bytes]:
    """`{member name: bytes}`: the `config.json` of each local folder that a `model_name` of
    `config["model"]` names (relative to `root`, where the training ran)."""
    members = {}
    for where, holder in _model_names(config.get("model"), "model"):
        folder = holder["model_name"]
        path = os.path.join(folder if os.path.isabs(folder) else os.path.join(root, folder), CONFIG)
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                members[f"{ARCHIVED}/{where}/{CONFIG}"] = handle.read()
    return members


def point_at_archived(config: Dict, serialization_dir: str) -> Dict:
    """`config` (changed in place, and returned) with each `model_name` of its `model` whose config
    the archive extracted in `serialization_dir` carries pointing at that archived folder, to be
    built from the config alone (`load_weights: false`; the archive's weights.th holds the weights)."""
    for where, holder in _model_names(config.get("model"), "model"):
        folder = os.path.join(serialization_dir, ARCHIVED, where)
        if os.path.isfile(os.path.join(folder, CONFIG)):
            holder["model_name"] = folder
            holder["load_weights"] = False
    return config
