"""Each recipe holds what recipes/README's layout asks for (README with its question, protocol, one
command, time and results; recipe.jsonnet; study.jsonnet), its run.sh is the one-line wrapper of
`allennlp recipe run`, `allennlp recipe status` answers for it (in this process), and its README's
results tables are those its committed results.json gives (a block with no results.json holds no
table)."""
import os
import re

import pytest

from srcframework.recipes.recipe import load_recipe
from srcframework.studies.markdown_into import expected_content, find_blocks
from tests.conftest import ROOT, run_allennlp

RECIPES = sorted(p for p in (ROOT / "recipes").iterdir() if p.is_dir())
SECTIONS = ("**Question", "**Protocol", "**One command", "**Time on 2 cores", "## Results")


def name(path):
    return path.name


@pytest.mark.parametrize("recipe", RECIPES, ids=name)
def test_recipe_has_readme_recipe_and_study(recipe):
    assert (recipe / "study.jsonnet").is_file() and (recipe / "recipe.jsonnet").is_file()
    readme = recipe / "README.md"
    text = readme.read_text()
    missing = [section for section in SECTIONS if section not in text]
    assert not missing, f"{readme.relative_to(ROOT)} lacks {missing}"
    assert f"allennlp recipe run {recipe.name}" in text
    assert find_blocks(text, str(readme)), "the results go between <!-- results:NAME --> markers"


@pytest.mark.parametrize("recipe", RECIPES, ids=name)
def test_run_sh_is_one_line_over_the_runner(recipe):
    run = recipe / "run.sh"
    assert os.access(run, os.X_OK), "run.sh should be executable"
    commands = [line for line in run.read_text().splitlines() if line.strip() and not line.startswith("#")]
    assert commands == [f'cd "$(dirname "$0")/../.." && exec .venv/bin/allennlp recipe run {recipe.name} "$@"']


@pytest.mark.parametrize("recipe", RECIPES, ids=name)
def test_status_names_every_step_and_a_wrong_step_is_one_line(recipe, tmp_path):
    steps = [step.name for step in load_recipe(recipe.name).steps]
    status = run_allennlp("recipe", "status", recipe.name, "--runs", tmp_path)
    assert status.returncode == 0, status.stderr[-2000:]
    for step in steps:
        assert re.search(rf"^  {re.escape(step)} +(skipped: finished|resumed: |to run: |not needed: )", status.stdout, re.MULTILINE), step
    # nothing was made here: a committed results.json does not make its step finished
    assert "skipped: finished" not in status.stdout
    wrong = run_allennlp("recipe", "run", recipe.name, "no-such-step", "--dry-run")
    assert wrong.returncode == 1
    assert wrong.stderr.strip().splitlines()[-1].startswith(f"error: recipe {recipe.name}: no step 'no-such-step'")


READMES = [recipe / "README.md" for recipe in RECIPES if (recipe / "README.md").exists()]


@pytest.mark.parametrize("readme", READMES, ids=lambda p: p.parent.name)
def test_results_tables_are_generated_from_the_committed_results(readme):
    text = readme.read_text()
    for block in find_blocks(text, str(readme)):
        if block.source is None:
            assert not re.search(r"^\|", block.content, re.MULTILINE), f"{block.name}: a table typed by hand"
            assert "Not yet run here" in block.content
            continue
        results = readme.parent / block.source
        assert results.is_file(), f"{block.name}: {block.source} is not committed"
        assert block.content == expected_content(str(results.relative_to(ROOT)), str(readme.relative_to(ROOT)), block.tables), (
            f"{block.name}: the tables differ from {block.source}; run python -m srcframework.studies.markdown_into "
            f"{results.relative_to(ROOT)} {readme.relative_to(ROOT)}")


@pytest.mark.parametrize("recipe", RECIPES, ids=name)
def test_a_step_that_writes_committed_files_runs_only_when_named(recipe):
    """`allennlp recipe run NAME` writes under the runs folder; a step whose outputs lie anywhere
    else (a recipe's results.json and README tables, an archive in models/) is optional: it runs
    when named (`allennlp recipe run quickstart report`), so a plain run leaves the clone clean."""
    loaded = load_recipe(recipe.name)
    for step in loaded.steps:
        outside = [str(path) for path in step.outputs if not str(path).startswith("runs")]
        if outside:
            assert step.optional, f"{recipe.name}: step {step.name} writes {outside[0]} but runs without being named"


@pytest.mark.parametrize("recipe", RECIPES, ids=name)
def test_a_report_step_names_every_file_it_writes(recipe):
    """The report job writes results.json and the per-question record pairs.tar.xz into the recipe's
    folder: both are its outputs, so a missing record says the step is to run."""
    for step in load_recipe(recipe.name).steps:
        if step.job and step.job.get("type") == "report":
            folder = step.job["recipe"]
            assert set(step.outputs) >= {f"{folder}/results.json", f"{folder}/pairs.tar.xz"}, step.name
