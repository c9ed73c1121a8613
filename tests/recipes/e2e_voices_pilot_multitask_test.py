"""recipes/e2e_voices/pilot_multitask.jsonnet and its twin pilot_multitask_off.jsonnet: the same
training but for the CTC loss, and a second stage that starts from the first stage's weights
although the first stage has no CTC layer."""
import json

import _jsonnet
import torch
from allennlp.commands.train import TrainModel
from allennlp.common import Params

from tests.conftest import ROOT
from tests.recipes.configs_build_test import inputs  # noqa: F401 (the tiny files, a fixture)
from tests.recipes.recipe_variables import recipe_variables
from tests.recipes.tiny_config import tiny_config

CONFIGS = {name: ROOT / "recipes" / "e2e_voices" / f"{name}.jsonnet" for name in ("pilot_multitask", "pilot_multitask_off")}


def render(name, seed="1"):
    path = CONFIGS[name]
    return json.loads(_jsonnet.evaluate_file(str(path), ext_vars=recipe_variables(path, SEED=seed)))


def test_the_twins_differ_only_in_the_ctc_loss():
    on, off = render("pilot_multitask"), render("pilot_multitask_off")
    assert on["model"]["question_encoder"].pop("ctc_weight") == 0.3 and off["model"]["question_encoder"].pop("ctc_weight") == 0
    assert on["dataset_reader"].pop("ctc_targets") is True and off["dataset_reader"].pop("ctc_targets") is False
    assert on == off
    # seed 2 and its first stage (the page's dated note), whatever SEED says; 2 epochs, the last archived
    assert render("pilot_multitask", seed="1") == render("pilot_multitask")
    assert on["random_seed"] == on["numpy_seed"] == on["pytorch_seed"] == 2
    assert on["model"]["initializer"]["regexes"][0][1]["weights_file_path"] == "runs/e2e_speecht5_ctc_s2/best.th"
    assert on["trainer"]["num_epochs"] == 2 and "patience" not in on["trainer"]
    assert {"type": "declared_checkpoint", "epoch": "last"} in on["trainer"]["callbacks"]
    assert on["validation_data_path"] == "runs/spoken_voices/development/fid2qid_heldout.csv"
    assert "ctc_targets" not in on["validation_dataset_reader"]


def test_the_second_stage_starts_from_the_first_stages_weights_but_the_ctc_layer(inputs, tmp_path):  # noqa: F811
    """The first stage (the twin without the CTC loss: the same parameters) writes best.th; the
    multitask config's initializer reads every weight from it but the CTC layer's."""
    twin = tiny_config(render("pilot_multitask_off"), inputs)
    twin.pop("include_in_archive")
    first = TrainModel.from_params(params=Params(twin), serialization_dir=str(tmp_path / "first"), local_rank=0).model
    with torch.no_grad():
        for parameter in first.parameters():
            parameter.add_(0.5)  # weights no fresh model has
    torch.save(first.state_dict(), tmp_path / "best.th")
    first.vocab.save_to_files(str(tmp_path / "vocabulary"))
    rendered = render("pilot_multitask")
    config = tiny_config(rendered, inputs)
    config.pop("include_in_archive")
    config["vocabulary"] = {"type": "from_files", "directory": str(tmp_path / "vocabulary")}
    initializer = rendered["model"]["initializer"]
    initializer["regexes"][0][1]["weights_file_path"] = str(tmp_path / "best.th")
    config["model"]["initializer"] = initializer
    second = TrainModel.from_params(params=Params(config), serialization_dir=str(tmp_path / "second"), local_rank=0).model
    state, saved = second.state_dict(), first.state_dict()
    assert set(state) - set(saved) == {"question_encoder.ctc_layer.weight", "question_encoder.ctc_layer.bias"}
    assert all(torch.equal(state[key], value) for key, value in saved.items())
    assert second.question_encoder.auxiliary_loss_weight == 0.3
