"""The guard of the standing rule "no test set decides anything", for every config in
training_configs/ and recipes/ (rendered with the default variables and the recipe's `env`, as
its recipe renders it): no XQuAD, NoiseQA, spoken XQuAD, SQuAD-SRC dev or shipped dev file validates, enters the vocabulary or could pick the
archived weights; validation is the held-out articles of the training source (or a held-out map
made from the training maps); every model's archived epoch is declared."""
import json
import re

import _jsonnet
import pytest

from tests.conftest import ROOT
from tests.recipes.recipe_variables import recipe_variables

CONFIGS = sorted(
    [p for p in (ROOT / "training_configs").glob("*.jsonnet")]
    + [p for p in (ROOT / "recipes").glob("*/*.jsonnet") if not p.name.startswith("study") and p.name != "recipe.jsonnet"]
)
# files that are test sets wherever they appear (SQuAD dev holds XQuAD's paragraphs)
TEST_SET = re.compile(r"xquad|noiseqa|fid2qid_dev|data/default/dev\.json|dev-v1\.1\.json")
XQUAD = re.compile(r"xquad")


def render(path):
    return json.loads(_jsonnet.evaluate_file(str(path), ext_vars=recipe_variables(path)))


def is_test_set(path, config, reader=None) -> bool:
    """A test-set path, unless it is this config's own training source, or SQuAD dev read without
    XQuAD's questions (the CPU-scale training source) by a reader of its held-out articles."""
    if not path or path == config.get("train_data_path") or not TEST_SET.search(str(path)):
        return False
    reader = reader or {}
    without_xquad = XQUAD.search(str(reader.get("exclude_question_ids_from") or ""))
    return not (path.endswith("dev-v1.1.json") and without_xquad and reader.get("articles") == "held_out")


def split_keys(reader):
    return {k: reader.get(k) for k in ("held_out_share", "held_out_seed", "exclude_question_ids_from")}


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_test_set_decides_anything(path):
    config = render(path)
    train, validation = config.get("train_data_path"), config.get("validation_data_path")
    reader = config.get("dataset_reader", {})
    vreader = config.get("validation_dataset_reader", reader)
    assert not is_test_set(validation, config, vreader), f"validates on a test set: {validation}"
    if validation is not None:
        if vreader.get("articles", "all") != "all":
            # the held-out articles of the training source, split exactly as the training reader splits it
            assert vreader.get("articles") == "held_out" and reader.get("articles") == "train"
            assert split_keys(vreader) == split_keys(reader)
            # the split applies to the training source only, so that the archive's validation
            # reader reads a test set whole in evaluate, predict, cascade and compare
            assert vreader.get("source_file") == validation and reader.get("source_file") == train
        elif validation != train:
            assert re.search(r"held_?out", validation), f"validation is neither held-out articles of the training source nor a held-out map: {validation}"
    # a test set never enters the vocabulary (AllenNLP builds it from test data too, by default)
    if "test_data_path" in config:
        assert "test" not in (config.get("datasets_for_vocab_creation") or ["test"]), "test data would enter the vocabulary"
    vocabulary = config.get("vocabulary", {})
    for key in ("directory", "data_path"):
        assert not is_test_set(vocabulary.get(key), config), f"vocabulary from a test set: {vocabulary}"
    if vocabulary.get("type") == "from_reader":
        assert vocabulary["reader"].get("articles", "all") != "held_out"
        assert not vocabulary["reader"].get("noisy_copies") and not vocabulary["reader"].get("question_noise")


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_model_has_a_declared_checkpoint_and_noise_follows_the_epoch(path):
    config = render(path)
    callbacks = [c.get("type") for c in config.get("trainer", {}).get("callbacks", [])]
    assert "declared_checkpoint" in callbacks, "model.tar.gz must hold a declared epoch's weights"
    if config.get("validation_data_path") is not None or "declared_checkpoint" in callbacks:
        assert "training_record.json" in config.get("include_in_archive", []), "the archive should carry training_record.json"
    reader = config.get("dataset_reader", {})
    if reader.get("question_noise") or reader.get("noisy_copies") or reader.get("noise_schedule"):
        assert "reader_epoch" in callbacks, "training noise must be drawn by the trainer's epoch"
        assert config.get("data_loader", {}).get("max_instances_in_memory"), "noise must be drawn anew each epoch"


def test_the_guard_catches_a_config_that_validates_on_xquad():
    config = {"train_data_path": "../shared/data/squad/dev-v1.1.json", "validation_data_path": "../shared/data/xquad/xquad.en.json"}
    assert is_test_set(config["validation_data_path"], config)
    assert not is_test_set(config["train_data_path"], config)
    assert is_test_set("runs/spoken_ctc/xquad_rms/fid2qid_dev.csv", config)
    # SQuAD dev validates only as held-out articles read without XQuAD's questions
    other = {"train_data_path": "runs/noisy/train_asr.json"}
    dev = config["train_data_path"]
    assert is_test_set(dev, other, {"articles": "held_out"})
    assert not is_test_set(dev, other, {"articles": "held_out", "exclude_question_ids_from": config["validation_data_path"]})
