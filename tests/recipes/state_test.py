"""Where a recipe's step stands (srcframework/recipes/state.py) and the words for it: a command
step's outputs changed since its stamp make it stale and a damaged stamp counts as none; a training
made before the runner is finished only with the config the recipe gives now (the first key that
differs is named); a missing or broken training config is one line; a page a report job writes
into is not one of its inputs; a need found made before the runner and stamped later makes nothing
after it stale."""
import json
import shutil

import pytest

from srcframework.common.errors import InputError, InputFileNotFound
from srcframework.recipes.recipe import load_recipe
from srcframework.recipes.state import FINISHED, STALE, StepStates, config_difference, stamp_path, stamp_step, training_config
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "recipes" / "tiny")


def recipe_of(tmp_path, text):
    folder = tmp_path / "recipe"
    folder.mkdir()
    (folder / "recipe.jsonnet").write_text(text)
    runs = str(tmp_path / "runs")
    return load_recipe(str(folder), runs=runs), runs


def test_changed_outputs_are_stale_and_a_damaged_stamp_counts_as_none(tmp_path):
    recipe, runs = recipe_of(tmp_path, "function(runs) { steps: { s: { command: ['true'], outputs: [runs + '/out.txt'] } } }")
    step = recipe.step("s")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "out.txt").write_text("made")
    states = StepStates(recipe, runs)
    stamp_step(states, step)
    assert states.state(step).status == FINISHED and states.state(step).why == ""
    (tmp_path / "runs" / "out.txt").write_text("changed by hand")
    state = states.state(step)
    assert (state.status, state.line()) == (STALE, "to run: its outputs changed since it made them")
    with open(stamp_path(recipe, runs, step), "w") as handle:
        handle.write("{ half a stamp")
    assert states.stamp(step) is None
    assert states.state(step).line().endswith("(made before its stamp)")  # what lies in the runs folder was made here


def test_a_step_stays_finished_when_another_step_writes_into_its_folder(tmp_path):
    recipe, runs = recipe_of(tmp_path, """function(runs) { steps: {
        speech: { command: ['synthesize', runs + '/spoken', 'questions.json'], outputs: [runs + '/spoken/fid2qid.csv'] },
        asr: { needs: ['speech'], command: ['transcribe', runs + '/spoken'], outputs: [runs + '/spoken/transcripts.json'] },
    } }""")
    spoken = tmp_path / "runs" / "spoken"
    spoken.mkdir(parents=True)
    (spoken / "fid2qid.csv").write_text("f1\tq1\n")
    stamp_step(StepStates(recipe, runs), recipe.step("speech"))
    (spoken / "transcripts.json").write_text("{}")
    states = StepStates(recipe, runs)
    stamp_step(states, recipe.step("asr"))
    (spoken / "transcripts.json.journal").write_text("another job's journal")
    states = StepStates(recipe, runs)
    assert states.state(recipe.step("speech")).status == FINISHED
    assert states.state(recipe.step("asr")).status == FINISHED
    (spoken / "fid2qid.csv").write_text("f1\tq2\n")  # its own output changed: that step is stale
    assert StepStates(recipe, runs).state(recipe.step("speech")).status == STALE


def test_an_edit_of_a_page_the_report_writes_into_does_not_make_it_stale(tmp_path):
    page, results = tmp_path / "page.md", tmp_path / "results.json"
    page.write_text("# Results\n<!-- results:study -->\n<!-- /results:study -->\n")
    results.write_text("{}")
    recipe, runs = recipe_of(tmp_path, f"""function(runs) {{ steps: {{ report: {{
        job: {{ type: 'report', results: '{results}', recipe: '{tmp_path}', pages: ['{page}'] }},
        outputs: [runs + '/out.json'] }} }} }}""")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "out.json").write_text("{}")
    step = recipe.step("report")
    stamp_step(StepStates(recipe, runs), step)
    page.write_text("# Results, with new prose around the block\n<!-- results:study -->\n<!-- /results:study -->\n")
    assert StepStates(recipe, runs).state(step).status == FINISHED
    results.write_text('{"changed": true}')  # what it reads did change: it runs again
    assert StepStates(recipe, runs).state(step).status == STALE


def test_a_training_made_before_the_runner_is_finished_only_with_the_same_config(tiny_archive, tmp_path):
    runs = tmp_path / "runs"
    first = runs / "tiny" / "first"
    shutil.copytree(tiny_archive.parent, first)
    recipe = load_recipe(TINY, runs=str(runs))
    step = recipe.step("first")
    assert StepStates(recipe, str(runs)).state(step).line().endswith("(trained before its stamp)")
    fewer = StepStates(recipe, str(runs), json.dumps({"trainer.num_epochs": 1})).state(step)
    assert (fewer.status, fewer.line()) == (STALE, "to run: stale: trainer.num_epochs is 1 here, 2 in its config.json")
    (first / "config.json").unlink()
    unknown = StepStates(recipe, str(runs)).state(step)
    assert unknown.status == STALE and unknown.why.startswith("stale: the config is {") and unknown.why.endswith(
        " here, null in its config.json")


def test_the_first_key_that_differs_is_named():
    assert config_difference({"a": {"b": 1, "c": 2}}, {"a": {"b": 1}}) == "a.c is new here, not in its config.json"
    assert config_difference({"a": {"b": 1}}, {"a": {"b": 1, "c": 2}}) == "a.c is in its config.json, not here"
    assert config_difference({"a": [1, 2]}, {"a": [1, 3]}) == "a is [1, 2] here, [1, 3] in its config.json"
    assert config_difference({"a": [1, 2]}, {"a": [1, 2]}) is None


def test_a_missing_or_broken_training_config_is_one_line(tmp_path):
    recipe, runs = recipe_of(tmp_path, f"{{ trainings: {{ t: {{ config: '{tmp_path}/c.jsonnet', folder: 'f' }} }} }}")
    with pytest.raises(InputFileNotFound, match=f"recipe recipe, training t: no config {tmp_path}/c.jsonnet"):
        training_config(recipe, recipe.step("t"))
    (tmp_path / "c.jsonnet").write_text("{ model: ")
    with pytest.raises(InputError) as broken:
        training_config(recipe, recipe.step("t"))
    assert str(broken.value).startswith(f"{tmp_path}/c.jsonnet: cannot evaluate the config: ") and "\n" not in str(broken.value)


TWO_STEPS = """function(runs) { steps: {
    a: { command: ['make-a'], outputs: [runs + '/a.txt'] },
    b: { needs: ['a'], command: ['make-b'], outputs: [runs + '/b.txt'] },
} }"""


def test_stamping_a_need_found_made_before_the_runner_leaves_the_step_after_it_finished(tmp_path):
    recipe, runs = recipe_of(tmp_path, TWO_STEPS)
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.txt").write_text("made before the runner")
    (tmp_path / "runs" / "b.txt").write_text("b")
    stamp_step(StepStates(recipe, runs), recipe.step("b"))  # `a` lies there finished, without a stamp
    assert StepStates(recipe, runs).state(recipe.step("b")).status == FINISHED
    stamp_step(StepStates(recipe, runs), recipe.step("a"))  # a later run (a group that holds `a`) stamps it
    state = StepStates(recipe, runs).state(recipe.step("b"))
    assert (state.status, state.why) == (FINISHED, "")
    (tmp_path / "runs" / "a.txt").write_text("made again")
    stamp_step(StepStates(recipe, runs), recipe.step("a"))
    assert StepStates(recipe, runs).state(recipe.step("b")).line() == "to run: stale: a was made again since"


def test_a_stamp_that_recorded_a_need_as_not_made_stays_finished_until_the_need_is_made_again(tmp_path):
    import os

    from srcframework.recipes.state import NEEDS_STAMPED_AFTER, NOT_MADE, output_fingerprints

    recipe, runs = recipe_of(tmp_path, TWO_STEPS)
    (tmp_path / "runs").mkdir()
    a, b = tmp_path / "runs" / "a.txt", tmp_path / "runs" / "b.txt"
    a.write_text("made before the runner")
    b.write_text("b")
    states = StepStates(recipe, runs)
    step = recipe.step("b")
    # what a stamp said of a need that lay there finished without one, before `StepStates.made`
    old = {"step": "b", "fingerprint": states.fingerprint_with(step, {"a": NOT_MADE}), "needs": {"a": NOT_MADE},
           "outputs": output_fingerprints(step)}
    path = stamp_path(recipe, runs, step)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        json.dump(old, handle)
    os.utime(a, (os.path.getmtime(path) - 60,) * 2)
    stamp_step(StepStates(recipe, runs), recipe.step("a"))
    state = StepStates(recipe, runs).state(step)
    assert (state.status, state.why) == (FINISHED, NEEDS_STAMPED_AFTER)
    os.utime(a, (os.path.getmtime(path) + 60,) * 2)  # made again after the step's stamp: stale
    assert StepStates(recipe, runs).state(step).line() == "to run: stale: a was made again since"
    os.utime(a, (os.path.getmtime(path) - 60,) * 2)
    stamp_step(StepStates(recipe, runs), step)  # the runner stamps it anew: the need's value now
    assert StepStates(recipe, runs).stamp(step)["needs"]["a"] != NOT_MADE
    assert StepStates(recipe, runs).state(step).why == ""


def test_a_chain_after_an_old_stamp_stays_finished_and_the_run_keeps_the_stamps(tmp_path, capsys):
    import os

    from srcframework.recipes.runner import run_recipe
    from srcframework.recipes.state import NOT_MADE, made_fingerprint, output_fingerprints

    recipe, runs = recipe_of(tmp_path, TWO_STEPS.replace("} }", "") + """
    c: { needs: ['b'], command: ['make-c'], outputs: [runs + '/c.txt'] },
} }""")
    (tmp_path / "runs").mkdir()
    for name in "abc":
        (tmp_path / "runs" / f"{name}.txt").write_text(name)
    states = StepStates(recipe, runs)
    b, c = recipe.step("b"), recipe.step("c")
    old = {"step": "b", "fingerprint": states.fingerprint_with(b, {"a": NOT_MADE}), "needs": {"a": NOT_MADE},
           "outputs": output_fingerprints(b)}  # `a` lay there without a stamp when `b` ran
    path = stamp_path(recipe, runs, b)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        json.dump(old, handle)
    needs = {"b": made_fingerprint(old)}
    with open(stamp_path(recipe, runs, c), "w") as handle:
        json.dump({"step": "c", "fingerprint": states.fingerprint_with(c, needs), "needs": needs,
                   "outputs": output_fingerprints(c)}, handle)
    os.utime(tmp_path / "runs" / "a.txt", (os.path.getmtime(path) - 60,) * 2)
    run_recipe(recipe, ["a", "b", "c"], runs=runs)  # every step finished: it runs none, stamps `a`, keeps the others
    said = capsys.readouterr().out
    assert "skip b: finished" in said and "skip c: finished" in said and "make-" not in said
    assert json.load(open(path)) == old
    assert [StepStates(recipe, runs).state(recipe.step(n)).status for n in "abc"] == [FINISHED] * 3
