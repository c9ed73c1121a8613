"""The noise-trained configs (the robust-training recipe's twins and study, and the test fixtures of
a transcript-trained and a noise-replacing BiDAF) parse and name what they should."""
import json

import _jsonnet
import pytest

from srcframework.recipes.recipe import load_recipe
from srcframework.studies.study import load_study
from tests.conftest import FIXTURES, ROOT, shared_file
from tests.recipes.recipe_variables import recipe_variables


def evaluate(name: str, **overrides) -> dict:
    return json.loads(_jsonnet.evaluate_file(str(FIXTURES / name), ext_vars=recipe_variables(FIXTURES / name, **overrides)))


def test_transcript_config_trains_on_transcripts_and_validates_on_the_clean_held_out_articles():
    config = evaluate("bidaf_cpu_scale_asr_transcripts.jsonnet", ASR_TRAIN="t.json")
    assert config["train_data_path"] == "t.json" and config["dataset_reader"]["articles"] == "train"
    assert config["validation_data_path"].endswith("squad/dev-v1.1.json")
    assert config["validation_dataset_reader"]["articles"] == "held_out"
    assert config["vocabulary"]["data_path"] == "t.json"


def test_the_mix_variant_replaces_questions():
    mix = evaluate("bidaf_cpu_scale_augmented_mix.jsonnet", NOISY_TRAIN="copies")["dataset_reader"]
    assert "keep_clean" not in mix and mix["noisy_copy_weights"]["clean"] == 0.4


RECIPE = ROOT / "recipes" / "robust_training"


def recipe(name: str, **overrides) -> dict:
    return json.loads(_jsonnet.evaluate_file(str(RECIPE / name), ext_vars=recipe_variables(RECIPE / name, **overrides)))


@pytest.mark.parametrize("model", ["bidaf", "minilm"])
@pytest.mark.parametrize("seed", ["1", "2", "3"])
def test_the_twins_differ_only_in_the_noisy_copies(model, seed):
    clean = recipe(f"{model}_clean.jsonnet", SEED=seed, NOISY_TRAIN="copies")
    augmented = recipe(f"{model}_augmented.jsonnet", SEED=seed, NOISY_TRAIN="copies")
    copies = augmented["dataset_reader"].pop("noisy_copies")
    assert sorted(copies) == ["asr", "back_translation", "keyboard", "misspelling"]
    assert clean == augmented
    reader = clean["dataset_reader"]
    assert reader["noise_seed"] == int(seed) and reader["keep_clean"]
    assert reader["noise_schedule"] == [{"from_epoch": 0, "share": 1}]
    assert clean["random_seed"] == clean["numpy_seed"] == clean["pytorch_seed"] == int(seed)
    assert {"type": "declared_checkpoint", "epoch": "last"} in clean["trainer"]["callbacks"]


def test_the_bidaf_twins_share_a_clean_vocabulary_and_train_6_epochs():
    config = recipe("bidaf_clean.jsonnet")
    vocabulary = config["vocabulary"]
    assert vocabulary["type"] == "from_reader" and vocabulary["data_path"] == config["train_data_path"]
    assert vocabulary["reader"]["articles"] == "train" and "noise_schedule" not in vocabulary["reader"]
    assert config["trainer"]["num_epochs"] == 6 and config["trainer"]["checkpointer"]["keep_most_recent_by_count"] == 6


def test_the_recipe_study_pairs_the_twins_over_three_seeds_and_groups_the_generators():
    shared_file("noiseqa/synthetic/xquad-asr-synthetic.json")
    study = load_study(str(RECIPE / "study.jsonnet"), ext_vars=recipe_variables(RECIPE / "study.jsonnet"), require_files=False)
    assert sorted(study.models) == ["bidaf_augmented", "bidaf_clean", "minilm_augmented", "minilm_clean"]
    assert study.models["bidaf_augmented"].archives == tuple(
        f"runs/robust_training/bidaf_augmented_s{seed}/model.tar.gz" for seed in (1, 2, 3))
    assert study.models["bidaf_augmented"].twin == "bidaf_clean" and study.models["minilm_augmented"].twin == "minilm_clean"
    trained = set(study.models["bidaf_augmented"].trained_on_noise)
    held_out = {name for name, s in study.test_sets.items() if s.generator and s.generator not in trained}
    assert held_out == {"noiseqa_asr", "noiseqa_keyboard", "noiseqa_translation"}
    assert {name for name, s in study.test_sets.items() if s.generator in trained} == {"ours_keyboard", "ours_back_translation", "spoken_rms"}
    assert study.bootstrap_unit == "context" and study.equivalence_margin == 1.5
    # the seeds and folders are those of the recipe's trainings
    steps = {step.name: step for step in load_recipe("robust_training").steps}
    assert study.models["bidaf_clean"].archives == tuple(steps[f"bidaf_clean_s{seed}"].archive for seed in (1, 2, 3))
