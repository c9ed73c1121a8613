"""The variables a file of `recipes/NAME/` is rendered with when its recipe runs it: the defaults of
srcframework/config_defaults.py (data locations) and the recipe's `env` (the paths of what the
recipe makes, which its configs and study read)."""
import functools
from pathlib import Path

from srcframework.config_defaults import DEFAULTS
from srcframework.recipes.recipe import load_recipe
from tests.conftest import ROOT

RECIPES = ROOT / "recipes"


@functools.lru_cache(maxsize=None)
def _recipe_env(name: str) -> tuple:
    return tuple(sorted(load_recipe(name).env.items()))


def recipe_variables(path, **overrides) -> dict:
    """The variables for `path` (a file anywhere: the defaults only outside a recipe), with `overrides`."""
    variables = dict(DEFAULTS)
    path = Path(path).resolve()
    if RECIPES in path.parents:
        name = path.relative_to(RECIPES).parts[0]
        if (RECIPES / name / "recipe.jsonnet").is_file():
            variables.update(_recipe_env(name))
    variables.update(overrides)
    return variables
