"""The recipe runner and `allennlp recipe status`/`snapshot` with a training whose card is released:
put back from its released archive instead of trained (srcframework/store/from_release.py does
the putting back), or from its snapshot, and judged as the run would judge it."""
import io
import json
import shutil
import tarfile

import pytest

from srcframework.common.errors import InputError
from tests.conftest import FIXTURES, training_state_kept
from tests.store.from_release_test import release


def test_the_runner_puts_a_released_training_back_instead_of_training_it(tmp_path, monkeypatch, tiny_archive, capsys):
    from srcframework.recipes.recipe import load_recipe
    from srcframework.recipes.runner import run_recipe
    from srcframework.recipes.state import StepStates

    # the tiny recipe's first training declares card bidaf-quickstart; here that card releases the tiny archive
    archive = release(tmp_path, monkeypatch, tiny_archive, "bidaf-quickstart")
    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(tmp_path / "installed"))
    runs = str(tmp_path / "runs")
    recipe = load_recipe(str(FIXTURES / "recipes" / "tiny"), runs=runs)
    assert StepStates(recipe, runs).state(recipe.step("first")).why.startswith("put back from its released archive")
    with training_state_kept():  # an AllenNLP training in this process sets up logging for good
        run_recipe(recipe, ["first"], runs)
    out = capsys.readouterr().out
    assert "first: put back from its released archive" in out and "train " not in out
    folder = tmp_path / "runs" / "tiny" / "first"
    assert (folder / "model.tar.gz").read_bytes() == archive.read_bytes()
    assert StepStates(recipe, runs).state(recipe.step("first")).status == "finished"
    # to reproduce it, --train-released trains it (here into another runs folder)
    other = str(tmp_path / "other")
    recipe = load_recipe(str(FIXTURES / "recipes" / "tiny"), runs=other)
    assert StepStates(recipe, other).state(recipe.step("first")).why.startswith("put back from its released archive")
    assert StepStates(recipe, other, releases=False).state(recipe.step("first")).why == "not started"
    with training_state_kept():  # an AllenNLP training in this process sets up logging for good
        run_recipe(recipe, ["first"], other, train_released=True)
    out = capsys.readouterr().out
    assert "train " in out and "put back" not in out
    # the folder put back from the release is trained too with --train-released (kept aside first)
    with training_state_kept():  # an AllenNLP training in this process sets up logging for good
        run_recipe(load_recipe(str(FIXTURES / "recipes" / "tiny"), runs=runs), ["first"], runs, train_released=True)
    out = capsys.readouterr().out
    assert "put back from its released archive, and --train-released trains it" in out and "train " in out
    assert (tmp_path / "runs" / "tiny" / "first.stale-1" / "metrics.json").is_file()
    assert "restored_from" not in json.loads((folder / "metrics.json").read_text())
    # a release that does not match its card is named in the status, and a run stops on it
    archive.write_bytes(archive.read_bytes() + b"\0")
    recipe = load_recipe(str(FIXTURES / "recipes" / "tiny"), runs=str(tmp_path / "third"))
    why = StepStates(recipe, str(tmp_path / "third")).state(recipe.step("first")).why
    assert why.startswith("the run will stop: model 'bidaf-quickstart'") and "does not match the sha256" in why
    with pytest.raises(InputError, match="does not match the sha256"):
        run_recipe(recipe, ["first"], str(tmp_path / "third"))
    assert not (tmp_path / "third" / "tiny" / "first").exists()


def test_the_runner_puts_a_finished_training_back_from_its_snapshot(tmp_path, tiny_archive, capsys):
    """A first stage that finished on another machine comes back for the stage after it."""
    from srcframework.recipes.recipe import load_recipe
    from srcframework.recipes.runner import run_recipe
    from srcframework.recipes.state import StepStates
    from srcframework.store import snapshot

    recipe_folder = tmp_path / "two"
    recipe_folder.mkdir()
    (recipe_folder / "recipe.jsonnet").write_text("""function(runs='runs') {
  description: 'a first stage',
  trainings: { one: { config: 'tests/fixtures/bidaf_tiny.jsonnet', folder: runs + '/one' } },
}""")
    runs = tmp_path / "runs"
    shutil.copytree(tiny_archive.parent, runs / "one")
    snapshot.save(str(runs / "one"), folder=str(tmp_path / "snapshots"))
    shutil.rmtree(runs / "one")
    recipe = load_recipe(str(recipe_folder), runs=str(runs))
    assert StepStates(recipe, str(runs)).state(recipe.step("one")).why == "not started"
    assert StepStates(recipe, str(runs), snapshots=str(tmp_path / "snapshots")).state(recipe.step("one")).why == (
        "not started here: put back from its snapshot in models/snapshots (finished, 2 epochs)")
    with training_state_kept():  # an AllenNLP training in this process sets up logging for good
        run_recipe(recipe, ["one"], str(runs), snapshots=str(tmp_path / "snapshots"))
    out = capsys.readouterr().out
    assert "one: finished, put back from its snapshot" in out and "train " not in out
    assert StepStates(recipe, str(runs)).state(recipe.step("one")).status == "finished"


def test_recipe_snapshot_judges_a_released_training_as_the_run_would(tmp_path, monkeypatch, tiny_archive):
    from srcframework.recipes.recipe import load_recipe
    from srcframework.recipes.status import under_way

    release(tmp_path, monkeypatch, tiny_archive, "bidaf-quickstart")  # the tiny recipe's first training's card
    runs = str(tmp_path / "runs")
    recipe = load_recipe(str(FIXTURES / "recipes" / "tiny"), runs=runs)
    first = tmp_path / "runs" / "tiny" / "first"
    shutil.copytree(tiny_archive.parent, first)  # finished; the study that needs it has not run
    assert under_way(recipe, runs) == []  # a run puts it back from the release
    assert under_way(recipe, runs, train_released=True) == [str(first)]  # a run with --train-released would not
    # the command hands --runs, -o and --train-released on: only with the flag is the finished folder saved
    from tests.conftest import run_allennlp
    snapshots = tmp_path / "snapshots"
    plain = run_allennlp("recipe", "snapshot", str(FIXTURES / "recipes" / "tiny"), "--runs", runs, "--snapshots", snapshots)
    assert plain.returncode == 0 and str(first) not in plain.stdout, plain.stderr[-2000:]
    flagged = run_allennlp("recipe", "snapshot", str(FIXTURES / "recipes" / "tiny"), "--runs", runs, "--snapshots", snapshots,
                           "--train-released", "-o", "{}")
    assert flagged.returncode == 0 and f"({first})" in flagged.stdout, flagged.stderr[-2000:]
    # under another config the release does not count, and this folder is stale: the run trains it again
    assert under_way(recipe, runs, overrides='{"trainer.num_epochs": 99}') == []
    config = json.loads((first / "config.json").read_text())
    config["trainer"]["num_epochs"] = 99
    (first / "config.json").write_text(json.dumps(config))
    assert under_way(recipe, runs, overrides='{"trainer.num_epochs": 99}') == [str(first)]
    # a folder put back from the release is stale for --train-released: trained again, not saved
    config["trainer"]["num_epochs"] = json.loads((tiny_archive.parent / "config.json").read_text())["trainer"]["num_epochs"]
    (first / "config.json").write_text(json.dumps(config))
    metrics = json.loads((first / "metrics.json").read_text())
    (first / "metrics.json").write_text(json.dumps(dict(metrics, restored_from="models/bidaf-quickstart.tar.gz")))
    assert under_way(recipe, runs, train_released=True) == []


def test_a_first_stage_only_a_released_second_stage_needs_is_left_out(tmp_path, monkeypatch, tiny_archive):
    from srcframework.recipes.recipe import load_recipe
    from srcframework.recipes.runner import plan
    from srcframework.recipes.state import StepStates
    from srcframework.recipes.status import status_lines

    release(tmp_path, monkeypatch, tiny_archive, "bidaf-quickstart")
    folder = tmp_path / "stages"
    folder.mkdir()
    (folder / "recipe.jsonnet").write_text("""function(runs='runs') {
  description: 'two stages, the second released',
  trainings: {
    one: { config: 'tests/fixtures/bidaf_tiny.jsonnet', folder: runs + '/one', depends_on: ['prepare'] },
    two: { config: 'tests/fixtures/bidaf_tiny.jsonnet', folder: runs + '/two', card: 'bidaf-quickstart', depends_on: ['one'] },
  },
  steps: {
    prepare: { command: ['python', '-c', 'pass'], outputs: [runs + '/prepared'] },
    after: { needs: ['two'], command: ['python', '-c', 'pass'], outputs: [runs + '/after'] },
  },
}""")
    runs = str(tmp_path / "runs")
    recipe = load_recipe(str(folder), runs=runs)

    def names(steps, **kwargs):
        return [item.state.step.name for item in plan(recipe, steps, StepStates(recipe, runs, **kwargs))]

    # the first stage is left out; a step other than a training is kept all the same
    assert names([]) == ["prepare", "two", "after"]
    assert names(["two"]) == ["two"]  # its first stage not finished is no error: it is not read
    assert names(["prepare", "one", "two"]) == ["prepare", "one", "two"]  # named, it runs
    assert names([], releases=False) == ["prepare", "one", "two", "after"]  # --train-released trains both
    lines = status_lines(recipe, runs)
    assert "  one      not needed: two, after it, is put back from its released archive" in lines
    # once put back, the second stage still needs no first stage
    from srcframework.recipes.runner import run_recipe

    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(tmp_path / "installed"))
    run_recipe(recipe, ["two"], runs)
    assert names([]) == ["prepare", "two", "after"]
    # the fixture archive released as bidaf-quickstart is installed into this test's models folder, never the user's
    assert (tmp_path / "installed" / "bidaf-quickstart.tar.gz").read_bytes() == tiny_archive.read_bytes()


def test_outputs_of_other_steps_inside_a_training_folder_outlive_its_putting_back(tmp_path, monkeypatch, tiny_archive,
                                                                                  capsys):
    """As the quickstart's noisy sets in runs/quickstart/sets: made first, then the training they
    sit in is put back from its release, which replaces the folder."""
    from srcframework.recipes.recipe import load_recipe
    from srcframework.recipes.runner import run_recipe

    release(tmp_path, monkeypatch, tiny_archive, "bidaf-quickstart")
    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(tmp_path / "installed"))
    (tmp_path / "recipe").mkdir()
    (tmp_path / "recipe" / "recipe.jsonnet").write_text("""function(runs='runs') {
      description: 'a training and a set made inside its folder',
      trainings: { first: { config: 'tests/fixtures/bidaf_tiny.jsonnet', folder: runs + '/first',
                            card: 'bidaf-quickstart', threads: 1 } },
      steps: { set: { command: ['python', '-c', 'import sys; open(sys.argv[1], "w").write("made")',
                                runs + '/first/sets/set.txt'],
                      outputs: [runs + '/first/sets/set.txt'] } },
    }""")
    runs = str(tmp_path / "runs")
    recipe = load_recipe(str(tmp_path / "recipe"), runs=runs)
    assert [step.name for step in recipe.steps] == ["set", "first"]
    with training_state_kept():
        run_recipe(recipe, [], runs)
    assert "first: put back from its released archive" in capsys.readouterr().out
    made = tmp_path / "runs" / "first" / "sets" / "set.txt"
    assert made.read_text() == "made"
    assert (tmp_path / "runs" / "first" / "model.tar.gz").is_file()
    assert not (tmp_path / "runs" / "first.outputs-kept").exists()
    # a run stopped while they were moved aside: the next run moves them back before anything else
    kept = tmp_path / "runs" / "first.outputs-kept" / "sets"
    kept.mkdir(parents=True)
    made.rename(kept / "set.txt")
    with training_state_kept():
        run_recipe(load_recipe(str(tmp_path / "recipe"), runs=runs), [], runs)
    out = capsys.readouterr().out
    assert made.read_text() == "made" and not kept.parent.exists()
    assert "skip set" in out and "skip first" in out


def two_stages(tmp_path):
    """The folder of a recipe whose training `two` depends on training `one` (the tiny fixture
    config each), with the group `both` of the two."""
    folder = tmp_path / "stages"
    folder.mkdir()
    (folder / "recipe.jsonnet").write_text("""function(runs='runs') {
  description: 'two stages',
  trainings: {
    one: { config: 'tests/fixtures/bidaf_tiny.jsonnet', folder: runs + '/one' },
    two: { config: 'tests/fixtures/bidaf_tiny.jsonnet', folder: runs + '/two', depends_on: ['one'] },
  },
  groups: { both: ['one', 'two'] },
}""")
    return folder


def test_a_first_stage_never_here_is_not_trained_for_a_second_stage_in_a_finished_snapshot(tmp_path, tiny_archive,
                                                                                           capsys):
    """A study's second stage that finished on another machine comes back from its snapshot alone:
    its first stage, neither here nor in a snapshot, is not trained again for it."""
    from srcframework.recipes.recipe import load_recipe
    from srcframework.recipes.runner import plan, run_recipe
    from srcframework.recipes.state import StepStates
    from srcframework.recipes.status import status_lines
    from srcframework.store import snapshot

    folder = two_stages(tmp_path)
    runs, snapshots = tmp_path / "runs", str(tmp_path / "snapshots")
    shutil.copytree(tiny_archive.parent, runs / "two")
    snapshot.save(str(runs / "two"), folder=snapshots)
    shutil.rmtree(runs / "two")
    recipe = load_recipe(str(folder), runs=str(runs))

    def names(steps, where=snapshots):
        return [item.state.step.name for item in plan(recipe, steps, StepStates(recipe, str(runs), snapshots=where))]

    assert names([]) == ["two"] and names(["two"]) == ["two"]
    assert names(["one", "two"]) == ["one", "two"]  # named, it runs
    assert names(["both"]) == ["two"]  # a group names no step of its own
    assert names([], where=str(tmp_path / "none")) == ["one", "two"]  # without the snapshot both train
    assert "  one  not needed: two, after it, has finished and reads it no more (it was never here)" in status_lines(
        recipe, str(runs), snapshots=snapshots)
    with training_state_kept():  # an AllenNLP training in this process sets up logging for good
        run_recipe(recipe, [], str(runs), snapshots=snapshots)
    out = capsys.readouterr().out
    assert "two: finished, put back from its snapshot" in out and "train " not in out
    assert not (runs / "one").exists()
    # found finished here now, it still needs no first stage, and stays finished
    assert names([], where=str(tmp_path / "none")) == ["two"]
    assert StepStates(recipe, str(runs)).state(recipe.step("two")).status == "finished"
    # a first stage that is here is judged as before
    shutil.copytree(tiny_archive.parent, runs / "one")
    assert names([], where=str(tmp_path / "none")) == ["one", "two"]


def test_a_second_stage_snapshot_built_from_its_first_stage_files_keeps_that_stage_needed(tmp_path, tiny_archive):
    """A finished second stage's snapshot that left out the tensors its initialisation reads from
    its first stage's weights file needs that file to be put back: the first stage is not left
    out for it, as it would be for a snapshot that holds every tensor."""
    from srcframework.recipes.recipe import load_recipe
    from srcframework.recipes.runner import plan
    from srcframework.recipes.state import StepStates
    from srcframework.recipes.status import status_lines
    from srcframework.store import snapshot

    folder = two_stages(tmp_path)
    runs, snapshots = tmp_path / "runs", str(tmp_path / "snapshots")
    shutil.copytree(tiny_archive.parent, runs / "one")
    shutil.copytree(tiny_archive.parent, runs / "two")
    config = json.loads((runs / "two" / "config.json").read_text())
    config["model"]["initializer"] = {"regexes": [[".*", {"type": "pretrained",
                                                          "weights_file_path": str(runs / "one" / "best.th")}]]}
    (runs / "two" / "config.json").write_text(json.dumps(config))
    with tarfile.open(runs / "two" / "model.tar.gz", "r:gz") as archive:  # its archive's config says so too
        members = {m.name: archive.extractfile(m).read() for m in archive.getmembers() if m.isfile()}
    members["config.json"] = json.dumps(config).encode()
    with tarfile.open(runs / "two" / "model.tar.gz", "w:gz") as archive:
        for name, payload in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            archive.addfile(info, io.BytesIO(payload))
    record = snapshot.save(str(runs / "two"), folder=snapshots)
    assert record["left_out"]  # its weights are the first stage's: every tensor is left out
    assert snapshot.reads_folder(record, str(runs / "one"), snapshots)
    assert not snapshot.reads_folder(record, str(runs / "other"), snapshots)
    shutil.rmtree(runs / "two")
    shutil.rmtree(runs / "one")
    recipe = load_recipe(str(folder), runs=str(runs))
    states = StepStates(recipe, str(runs), snapshots=snapshots)
    assert [item.state.step.name for item in plan(recipe, [], states)] == ["one", "two"]
    assert not any("not needed" in line for line in status_lines(recipe, str(runs), snapshots=snapshots))
