"""Each recipe holds what recipes/README's layout asks for (README with its question, protocol, one
command, time and results; run.sh; study.jsonnet), its run.sh parses and answers `status`, and its
README's results tables are those its committed results.json gives (a block with no results.json
holds no table)."""
import os
import re
import subprocess

import pytest

from srcframework.studies.markdown_into import expected_content, find_blocks
from tests.conftest import ROOT

RECIPES = sorted(p for p in (ROOT / "recipes").iterdir() if p.is_dir())
SECTIONS = ("**Question", "**Protocol", "**One command", "**Time on 2 cores", "## Results")


def name(path):
    return path.name


@pytest.mark.parametrize("recipe", RECIPES, ids=name)
def test_recipe_has_readme_run_sh_and_study(recipe):
    assert (recipe / "study.jsonnet").is_file() and (recipe / "run.sh").is_file()
    assert os.access(recipe / "run.sh", os.X_OK), "run.sh should be executable"
    readme = recipe / "README.md"
    text = readme.read_text()
    missing = [section for section in SECTIONS if section not in text]
    assert not missing, f"{readme.relative_to(ROOT)} lacks {missing}"
    assert f"bash recipes/{recipe.name}/run.sh" in text
    assert find_blocks(text, str(readme)), "the results go between <!-- results:NAME --> markers"


@pytest.mark.parametrize("recipe", RECIPES, ids=name)
def test_run_sh_parses_and_reports_its_status(recipe):
    run = recipe / "run.sh"
    assert subprocess.run(["bash", "-n", str(run)], capture_output=True).returncode == 0
    status = subprocess.run(["bash", str(run), "status"], capture_output=True, text=True, cwd=ROOT)
    assert status.returncode == 0, status.stderr
    assert re.search(r"^  (done|missing) ", status.stdout, re.MULTILINE) and "this run:" in status.stdout
    wrong = subprocess.run(["bash", str(run), "no-such-step"], capture_output=True, text=True, cwd=ROOT)
    assert wrong.returncode == 2 and wrong.stderr.startswith("usage:")


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
