"""recipes/e2e_voices/pilot_multitask.jsonnet and its twin pilot_multitask_off.jsonnet: the same
training but for the CTC loss, and a second stage that starts from the first stage's weights
although the first stage has no CTC layer."""
import json

import _jsonnet
import torch

from tests.conftest import ROOT
from tests.recipes.configs_build_test import inputs  # noqa: F401 (the tiny files, a fixture)
from tests.recipes.recipe_variables import recipe_variables
from tests.recipes.two_stages import first_then_second

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
    first, second = first_then_second(render("pilot_multitask_off"), render("pilot_multitask"), inputs, tmp_path)
    state, saved = second.state_dict(), first.state_dict()
    assert set(state) - set(saved) == {"question_encoder.ctc_layer.weight", "question_encoder.ctc_layer.bias"}
    assert all(torch.equal(state[key], value) for key, value in saved.items())
    assert second.question_encoder.auxiliary_loss_weight == 0.3
