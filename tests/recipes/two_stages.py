"""A tiny first stage and the second stage that starts from it, for the tests of configs whose
second stage initialises from a first stage's `best.th` and vocabulary."""
from pathlib import Path
from typing import Tuple

import torch
from allennlp.commands.train import TrainModel
from allennlp.common import Params
from allennlp.models import Model

from tests.recipes.tiny_config import TinyInputs, tiny_config


def first_then_second(first_rendered: dict, second_rendered: dict, inputs: TinyInputs, folder: Path) -> Tuple[Model, Model]:
    """The first config built tiny, its weights moved to values no fresh model has and saved as
    `folder/best.th` with its vocabulary; then the second config built tiny with that vocabulary and
    its own initializer pointed at that `best.th`. `(first, second)`."""
    first_config = tiny_config(first_rendered, inputs)
    first_config.pop("include_in_archive")
    first = TrainModel.from_params(params=Params(first_config), serialization_dir=str(folder / "first"), local_rank=0).model
    with torch.no_grad():
        for parameter in first.parameters():
            parameter.add_(0.5)  # weights no fresh model has
    torch.save(first.state_dict(), folder / "best.th")
    first.vocab.save_to_files(str(folder / "vocabulary"))
    config = tiny_config(second_rendered, inputs)
    config.pop("include_in_archive")
    config["vocabulary"] = {"type": "from_files", "directory": str(folder / "vocabulary")}
    initializer = second_rendered["model"]["initializer"]
    initializer["regexes"][0][1]["weights_file_path"] = str(folder / "best.th")
    config["model"]["initializer"] = initializer
    second = TrainModel.from_params(params=Params(config), serialization_dir=str(folder / "second"), local_rank=0).model
    return first, second
