"""Tiny overrides of a rendered training config, as AllenNLP's own training-config tests make them
(allennlp-models' tests/training_config_test.py patches GloVe and data paths the same way): the
model keeps its architecture and sizes; only what it reads is replaced.

- data paths (train, validation, test, a vocabulary's `data_path`, `noisy_copies`, `squad_file`)
  become tests/fixtures/squad_tiny.json, or the `fid2qid_dev.csv` of a tiny spoken folder where
  the reader is `squad_src`; `exclude_question_ids_from` is dropped (XQuAD is not in a clone);
- a `glove` embedder's file becomes tests/fixtures/glove_tiny.txt's words at the config's width;
- transformer and SpeechT5 checkpoints become tiny random ones (tests/tiny_models.py; a BERT as
  wide as MiniLM, whose width the configs that read it spell out);
- a misspelling noise source reads a two-line list;
- what only an earlier run of the recipe makes is dropped: a `from_files` vocabulary (built from the
  tiny data instead) and `pretrained` initializers (the weights stay random).
"""
import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import FIXTURES

SQUAD_TINY = str(FIXTURES / "squad_tiny.json")
DATA_KEYS = ("train_data_path", "validation_data_path", "test_data_path")
SPEECH_TYPES = {"speecht5", "speecht5_text"}
TRANSFORMER_KEYS = ("model_name", "transformer_model_name")


@dataclass(frozen=True)
class TinyInputs:
    """Files the overrides point at: a spoken folder, a BERT and a SpeechT5 folder, a misspelling
    list, and a folder for GloVe files of any width."""

    spoken: Path
    bert: str
    speecht5: str
    misspellings: str
    folder: Path

    def glove(self, dim: int) -> str:
        """glove_tiny.txt's words with their vectors repeated to `dim` values."""
        path = self.folder / f"glove_tiny_{dim}d.txt"
        if not path.exists():
            lines = []
            for line in (FIXTURES / "glove_tiny.txt").read_text().splitlines():
                word, *values = line.split()
                lines.append(" ".join([word] + [values[i % len(values)] for i in range(dim)]))
            path.write_text("\n".join(lines) + "\n")
        return str(path)


def _is_audio(reader: Any) -> bool:
    return isinstance(reader, dict) and reader.get("type") == "squad_src"


def _shrink(node: Any, inputs: TinyInputs) -> Any:
    if isinstance(node, list):
        return [_shrink(item, inputs) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    kind = node.get("type")
    for key, value in node.items():
        if key == "exclude_question_ids_from":
            continue
        if key == "initializer" and "pretrained" in repr(value):
            continue
        if key == "noisy_copies":
            value = {name: SQUAD_TINY for name in value}
        elif key == "squad_file" and value is not None:
            value = SQUAD_TINY
        elif key == "data_path" and isinstance(value, str):
            value = SQUAD_TINY
        elif kind == "glove" and key == "pretrained_file":
            value = inputs.glove(node["embedding_dim"])
        elif kind == "misspelling" and key == "path":
            value = inputs.misspellings
        elif key in TRANSFORMER_KEYS and isinstance(value, str):
            value = inputs.speecht5 if kind in SPEECH_TYPES else inputs.bert
        else:
            value = _shrink(value, inputs)
        out[key] = value
    return out


def tiny_config(config: dict, inputs: TinyInputs) -> dict:
    """`config` with the overrides above; the input is left as it is."""
    config = copy.deepcopy(config)
    for key in ("distributed", "random_seed", "numpy_seed", "pytorch_seed"):
        config.pop(key, None)
    if (config.get("vocabulary") or {}).get("type") == "from_files":
        del config["vocabulary"]
    readers = {
        "train_data_path": config.get("dataset_reader"),
        "validation_data_path": config.get("validation_dataset_reader", config.get("dataset_reader")),
        "test_data_path": config.get("validation_dataset_reader", config.get("dataset_reader")),
    }
    for key in DATA_KEYS:
        if config.get(key) is not None:
            config[key] = str(inputs.spoken / "fid2qid_dev.csv") if _is_audio(readers[key]) else SQUAD_TINY
    config = _shrink(config, inputs)
    config.setdefault("trainer", {})["cuda_device"] = -1
    return config
