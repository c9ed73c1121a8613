"""Reading recipe.jsonnet (srcframework/recipes/recipe.py): trainings expand by seed, steps run in
the order their needs give, names pick steps, and each bad recipe or name is one line; the report
job copies a study's results into its recipe and fills the README; the work under way is what
`allennlp recipe snapshot` saves (how it saves it: tests/store/quota_test.py)."""
import json

import pytest

from srcframework.common.errors import InputError
from srcframework.recipes.jobs import RecipeJob
from srcframework.recipes.recipe import load_recipe
from srcframework.recipes.status import under_way
from tests.conftest import FIXTURES
from tests.recipes.markdown_into_test import RESULTS
from tests.studies.records_test import record_files

TINY = str(FIXTURES / "recipes" / "tiny")


def write(folder, text):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "recipe.jsonnet").write_text(text)
    return str(folder)


def test_the_fixture_recipe_expands_seeds_and_orders_by_needs():
    recipe = load_recipe(TINY, runs="out")
    assert [step.name for step in recipe.steps] == ["first", "second_s1", "study"]
    second = recipe.step("second_s1")
    assert second.folder == "out/tiny/second_s1" and second.env == {"SEED": "1"} and second.card == "bidaf-cpu-scale"
    assert second.needs == ("first",) and recipe.step("study").needs == ("first", "second_s1")
    assert recipe.select(["second"]) == ["second_s1"] and recipe.select(["train"]) == ["first", "second_s1"]
    assert recipe.until(recipe.select([]), "second") == ["first", "second_s1"]


def test_the_real_recipes_load_with_their_groups():
    robust = load_recipe("robust_training")
    assert robust.select(["bidaf_clean"]) == ["bidaf_clean_s1", "bidaf_clean_s2", "bidaf_clean_s3"]
    assert [step.card for step in robust.steps if step.card] == [
        "bidaf-noise-augmented", "bidaf-clean", "minilm-qa-noise-augmented", "minilm-qa-clean"]
    e2e = load_recipe("e2e_cpu")
    assert e2e.step("e2e_finetune_s2").needs == ("e2e_s2",)
    names = [step.name for step in e2e.steps]
    assert names.index("pretrain") > names.index("split_ids") and names[-2:] == ["study", "report"]
    # --until: what the step needs, not every step that runs before it (the LM, spoken XQuAD and
    # pocketsphinx's transcripts sort before the pretraining but it needs none of them)
    assert e2e.until(e2e.select([]), "pretrain") == ["data", "speech_one", "speech_three", "speech_two", "split_ids",
                                                     "pretrain"]
    assert e2e.until(e2e.select(["pretrain", "lm"]), "pretrain") == ["pretrain"]
    with pytest.raises(InputError, match="--until pretrain does not need lm; run it without --until"):
        e2e.until(e2e.select(["pretrain", "lm"]), "pretrain", explicit=True)
    assert e2e.until(e2e.select(["data"]), "split_ids", explicit=True) == ["data", "split_ids"]  # the step itself runs
    quickstart = load_recipe("quickstart")
    optional = [step.name for step in quickstart.steps if step.optional]
    assert optional and quickstart.until(quickstart.select([]), optional[-1])[-1] == optional[-1]
    paper = load_recipe("squad_src_paper")
    assert "check_overfit" not in paper.select([]) and paper.select(["check"])[-1] == "check_overfit"


@pytest.mark.parametrize("text, message", [
    ("{ trainings: { a: { config: 'c.jsonnet' } } }", "recipe bad, training a: needs a `folder` path"),
    ("{ trainings: { a: { config: 'c', folder: 'f', seeds: [1, 2] } } }", "recipe bad, training a: with several seeds, `folder` holds {seed}"),
    ("{ trainings: { a: { config: 'c', folder: 'f', colour: 1 } } }", "recipe bad, training a: unknown key 'colour'"),
    ("{ steps: { s: { outputs: ['o'] } } }", "recipe bad, step s: give a `command` (a list of arguments) or a `job`"),
    ("{ steps: { s: { command: ['true'] } } }", "recipe bad, step s: name its `outputs` (what says it is done)"),
    ("{ steps: { s: { command: ['true'], outputs: ['o'], needs: ['t'] } } }",
     "recipe bad, step s: needs 't', which the recipe does not declare"),
    ("{ steps: { s: { command: ['true'], outputs: ['o'], needs: ['t'] }, t: { command: ['true'], outputs: ['p'], needs: ['s'] } } }",
     "recipe bad: the needs of s, t go round in a circle"),
    ("{ trainings: ", "cannot evaluate the recipe"),
    ("[1, 2]", "a recipe is an object (or a function of `runs` returning one)"),
    ("{ trainings: { a: 'c.jsonnet' } }", "recipe bad, training a: give an object with config and folder"),
    ("{ trainings: { a: { config: 'c', folder: 'f{seed}', seeds: [1, true] } } }",
     "recipe bad, training a: `seeds` is a list of integers, not [1, true]"),
    ("{ trainings: { a: { config: 'c', folder: 'f', threads: 0 } } }", "recipe bad, training a: `threads` is a positive integer, not 0"),
    ("{ trainings: { a: { config: 'c', folder: 'f', depends_on: 'b' } } }",
     'recipe bad, training a, depends_on: give a list of strings, not "b"'),
    ("{ trainings: { a: { config: 'c', folder: 'f', env: ['X=1'] } } }", 'recipe bad, training a: give an object of variables, not ["X=1"]'),
    ("{ steps: { s: ['true'] } }", "recipe bad, step s: give an object with a command or a job"),
    ("{ steps: { s: { job: 'compare', outputs: ['o'] } } }", 'recipe bad, step s: a `job` is an object with a `type`, not "compare"'),
    ("{ steps: { s: { command: [], outputs: ['o'] } } }", "recipe bad, step s: an empty command"),
    ("{ trainings: { a: { config: 'c', folder: 'f' } }, steps: { a: { command: ['true'], outputs: ['o'] } } }",
     "recipe bad: 'a' names both a training and a step"),
    ("{ steps: { s: { command: ['true'], outputs: ['o'] } }, groups: { s: ['s'] } }",
     "recipe bad: the group 's' has the name of a step or training"),
    ("{ steps: { s: { command: ['true'], outputs: ['o'] } }, groups: { g: ['s', 't'] } }", "recipe bad, group g: no step 't'"),
])
def test_a_bad_recipe_is_one_line(tmp_path, text, message):
    with pytest.raises(InputError) as error:
        load_recipe(write(tmp_path / "bad", text))
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_recipe_file_or_a_folder_without_recipes(tmp_path):
    from srcframework.recipes.recipe import recipe_names, recipe_path

    path = str(tmp_path / "mine.jsonnet")
    (tmp_path / "mine.jsonnet").write_text("{ steps: { s: { command: ['true'], outputs: ['o'] } } }")
    assert recipe_path(path) == path and [step.name for step in load_recipe(path).steps] == ["s"]
    assert recipe_names(str(tmp_path / "nowhere")) == []
    with pytest.raises(InputError, match=r"^no recipe 'quickstart' \(recipes: \)$"):
        recipe_path("quickstart", folder=str(tmp_path / "nowhere"))


def test_the_report_job_copies_the_results_and_fills_the_readme(tmp_path):
    recipe = tmp_path / "recipe"
    recipe.mkdir()
    (recipe / "README.md").write_text("<!-- results:study -->\nNot yet run here.\n<!-- /results:study -->\n")
    missing = RecipeJob.by_name("report")(results=str(tmp_path / "none.json"), recipe=str(recipe), cards=False)
    with pytest.raises(InputError, match="missing .*none.json: run the study step first"):
        missing.run()
    record_files(tmp_path, RESULTS)  # results.json and its pairs, which the job packs beside it
    RecipeJob.by_name("report")(results=str(tmp_path / "results.json"), recipe=str(recipe), cards=False).run()
    assert json.loads((recipe / "results.json").read_text()) == RESULTS
    assert "Not yet run here" not in (recipe / "README.md").read_text()
    # a results page with two blocks: each is filled, the text around them kept
    page = tmp_path / "page.md"
    page.write_text("# Results\n<!-- results:one -->\nold\n<!-- /results:one -->\nbetween\n"
                    "<!-- results:two -->\nold\n<!-- /results:two -->\n")
    RecipeJob.by_name("report")(results=str(tmp_path / "results.json"), recipe=str(recipe), cards=False,
                                pages=[str(page)]).run()
    text = page.read_text()
    assert "old" not in text and text.startswith("# Results\n") and "\nbetween\n" in text
    assert text.count("<!-- source: recipe/results.json -->") == 2  # linked from where the page is
    rows = [line for line in (recipe / "README.md").read_text().splitlines() if line.startswith("| ")]
    assert rows and all(row in text for row in rows)
    # every page is checked before anything is written: a page with no block leaves the recipe untouched
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "README.md").write_text("<!-- results:study -->\nNot yet run here.\n<!-- /results:study -->\n")
    empty = tmp_path / "empty.md"
    empty.write_text("# nothing to fill\n")
    with pytest.raises(InputError, match="empty.md: no <!-- results:NAME --> block to fill"):
        RecipeJob.by_name("report")(results=str(tmp_path / "results.json"), recipe=str(fresh), cards=False,
                                    pages=[str(page), str(empty)]).run()
    assert not (fresh / "results.json").exists() and "Not yet run here" in (fresh / "README.md").read_text()


def test_under_way_is_a_stopped_training_or_a_journaled_output(tmp_path):
    runs = tmp_path / "runs"
    recipe = load_recipe(TINY, runs=str(runs))
    assert under_way(recipe) == []
    first = runs / "tiny" / "first"
    first.mkdir(parents=True)
    (first / "model_state_e1_b0.th").write_bytes(b"")
    (runs / "tiny" / "study").mkdir()
    (runs / "tiny" / "study" / "results.json.journal-0-of-1.jsonl").write_text("{}\n")
    assert under_way(recipe) == [str(first), str(runs / "tiny" / "study" / "results.json")]


def test_a_step_running_elsewhere_stops_a_second_run_and_status_says_so(tmp_path, capsys):
    import os

    from srcframework.common.journal import JournalLock
    from srcframework.recipes.runner import run_recipe
    from srcframework.recipes.state import stamp_path
    from srcframework.recipes.status import status_lines

    runs = str(tmp_path / "runs")
    recipe = load_recipe(TINY, runs=runs)
    path = stamp_path(recipe, runs, recipe.step("first"))
    os.makedirs(os.path.dirname(path))
    with JournalLock(path):
        with pytest.raises(InputError, match=rf"recipe tiny: first is running in process {os.getpid()}, since .*; wait for it to end"):
            run_recipe(recipe, ["first"], runs=runs)
        assert any(line.startswith("  first      to run: not started  (running: process ") for line in status_lines(recipe, runs))
        capsys.readouterr()
        run_recipe(recipe, ["first"], runs=runs, dry_run=True)  # the plan says so too
        assert capsys.readouterr().out.startswith(f"first  to run: not started  (running: process {os.getpid()}")
    assert not (tmp_path / "runs" / "tiny" / "first").exists()


def test_under_way_is_also_a_finished_training_a_later_one_starts_from(tmp_path):
    runs = tmp_path / "runs"
    folder = write(tmp_path / "two", """function(runs='runs') {
  description: 'a first stage and a second that starts from it',
  trainings: {
    one: { config: 'tests/fixtures/bidaf_tiny.jsonnet', folder: runs + '/one' },
    two: { config: 'tests/fixtures/bidaf_tiny.jsonnet', folder: runs + '/two', depends_on: ['one'] },
  },
  steps: {
    study: { needs: ['two'], command: ['true'], outputs: [runs + '/study/results.json'] },
    more: { needs: ['two'], command: ['true'], outputs: [runs + '/more.json'], optional: true },
  },
}""")
    from srcframework.recipes.state import StepStates

    recipe = load_recipe(folder, runs=str(runs))
    for name in ("one", "two"):
        (runs / name).mkdir(parents=True)  # each trained with the config the recipe gives it
        (runs / name / "config.json").write_text(json.dumps(StepStates(recipe, str(runs)).config(recipe.step(name))))
    for name in ("model.tar.gz", "metrics.json"):
        (runs / "one" / name).write_bytes(b"")
    assert under_way(recipe) == [str(runs / "one")]  # the second stage has not finished
    for name in ("model.tar.gz", "metrics.json"):
        (runs / "two" / name).write_bytes(b"")
    assert under_way(recipe) == [str(runs / "one"), str(runs / "two")]  # the study, after both, has not run
    (runs / "study").mkdir()
    (runs / "study" / "results.json").write_text("{}")
    assert under_way(recipe) == []
