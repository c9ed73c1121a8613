"""Recipes: an experiment's trainings, seeds, cards and steps written once, in
`recipes/NAME/recipe.jsonnet`, and run by `allennlp recipe run NAME` (`srcframework.recipes.runner`):
each step skipped when finished (by fingerprint), resumed when stopped, run otherwise. Importing
the package registers the recipe jobs."""
from srcframework.recipes.jobs import CompareJob, RecipeJob, ReportJob  # noqa: F401
from srcframework.recipes.recipe import Recipe, Step, load_recipe, recipe_names  # noqa: F401
