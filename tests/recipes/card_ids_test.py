"""Recipes name their models by model card id: no recipe, config or default names a model archive
through a `*_ARCHIVE` variable; every model of a recipe's study is a card id (or one archive per
seed); each recipe's recipe.jsonnet installs the cards its study names (unless another recipe
releases them in the repository) and the cards that name it as their recipe; and each card's
`output` is the archive of the training its recipe declares for it (the first seed's)."""
import json
import re

import _jsonnet
import pytest

from srcframework.config_defaults import DEFAULTS
from srcframework.pretrained import is_released, model_cards
from srcframework.recipes.recipe import load_recipe
from tests.conftest import ROOT
from tests.recipes.recipe_variables import recipe_variables

ARCHIVE_VARIABLE = re.compile(r"\b[A-Z][A-Z0-9_]*_ARCHIVE\b")
SCANNED = sorted(path for folder in ("recipes", "training_configs") for path in (ROOT / folder).rglob("*")
                 if path.is_file() and "__pycache__" not in path.parts) + [ROOT / "srcframework" / "config_defaults.py"]
STUDIES = sorted((ROOT / "recipes").glob("*/study*.jsonnet"))


def relative(path) -> str:
    return str(path.relative_to(ROOT))


def test_no_archive_variable_is_left():
    found = [f"{relative(path)}: {', '.join(sorted(set(ARCHIVE_VARIABLE.findall(path.read_text(errors='ignore')))))}"
             for path in SCANNED if ARCHIVE_VARIABLE.search(path.read_text(errors="ignore"))]
    assert not found, f"model archives go by card id (`model: 'ID'`, `allennlp models install`), not by variables: {found}"
    assert not [name for name in DEFAULTS if name.endswith("_ARCHIVE")]


def test_the_check_finds_an_archive_variable():
    assert ARCHIVE_VARIABLE.findall("export BIDAF_ARCHIVE=x; std.extVar('E2E_ARCHIVE'); TINY_ARCHIVES") == [
        "BIDAF_ARCHIVE", "E2E_ARCHIVE"]


def study_models(path) -> dict:
    return json.loads(_jsonnet.evaluate_file(str(path), ext_vars=recipe_variables(path)))["models"]


@pytest.mark.parametrize("path", STUDIES, ids=lambda path: path.parent.name)
def test_a_recipe_study_names_its_models_by_card_id(path):
    cards = model_cards()
    for name, model in study_models(path).items():
        if "archives" in model:  # one archive per training seed (the robust-training twins)
            assert len(model["archives"]) >= 1 and "model" not in model
            continue
        assert "archive" not in model and "config" not in model, f"{name}: name its model card, `model: 'ID'`"
        assert model.get("model") in cards, f"{name}: no model card {model.get('model')!r}"


def installed_by(recipe: str) -> dict:
    """{card id: the archive of the training step that installs it} of a recipe."""
    return {step.card: step.archive for step in load_recipe(recipe).steps if step.card}


@pytest.mark.parametrize("path", STUDIES, ids=lambda path: relative(path))
def test_a_recipe_installs_the_models_of_its_study(path):
    installs = installed_by(path.parent.name)
    cards = model_cards()
    named = {model["model"] for model in study_models(path).values() if "model" in model}
    made_here = {model_id for model_id, card in cards.items() if card.model_usage.recipe == relative(path.parent)}
    # a model another recipe makes and releases in the repository comes with the clone
    released_elsewhere = {model_id for model_id in named - made_here if is_released(cards[model_id])}
    missing = sorted((named | made_here) - released_elsewhere - set(installs))
    assert not missing, f"{relative(path.parent)}/recipe.jsonnet installs no {missing} (a training's `card`)"


def test_each_card_output_is_the_archive_its_recipe_trains():
    wrong = []
    for model_id, card in sorted(model_cards().items()):
        recipe = card.model_usage.recipe
        if not recipe or not recipe.startswith("recipes/"):
            continue
        archive = installed_by(recipe.split("/", 1)[1]).get(model_id)
        if archive != card.model_usage.output:
            wrong.append(f"{model_id}: output {card.model_usage.output}, {recipe}/recipe.jsonnet trains {archive}")
    assert not wrong, wrong
