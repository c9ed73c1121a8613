"""The recipe runner in this process on the tiny fixture recipe (tests/fixtures/recipes/tiny: two
trainings of the tiny BiDAF, the second after the first, and one study): `--dry-run` says what
would run and why; a run trains, installs each card, runs the study and stamps each step; the next
run skips each step by its fingerprint; the overrides reach every training; a training stopped
between epochs is resumed with --recover, also from its snapshot where its folder is gone; a need made again, or a study file changed, makes the
steps after it stale, and they run again (a stale training's folder kept aside); what the runs
folder holds without stamps (made before the runner) is skipped and stamped."""
import json
import shutil

import pytest
from allennlp.training.callbacks.callback import TrainerCallback

from srcframework.recipes.recipe import load_recipe
from srcframework.recipes.runner import run_recipe
from srcframework.recipes.state import StepStates
from tests.conftest import FIXTURES, ROOT, run_allennlp, training_state_kept

TINY = str(FIXTURES / "recipes" / "tiny")
ONE_EPOCH = json.dumps({"trainer.num_epochs": 1})
STOPPING = {"on": True}


@TrainerCallback.register("test_recipe_stop_in_epoch")
class StopInEpoch(TrainerCallback):
    """Stops the training at the first training batch of `epoch` (from 0) with Ctrl-C's exception,
    as a kill between epochs leaves it: the earlier epochs' checkpoints, no metrics.json."""

    def __init__(self, serialization_dir: str, epoch: int = 1) -> None:
        super().__init__(serialization_dir)
        self.epoch = epoch

    def on_batch(self, trainer, batch_inputs, batch_outputs, batch_metrics, epoch, batch_number, is_training,
                 is_primary=True, **kwargs) -> None:
        if is_training and epoch == self.epoch and STOPPING["on"]:
            raise KeyboardInterrupt


@pytest.fixture
def models(tmp_path, monkeypatch):
    folder = tmp_path / "models"
    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(folder))
    return folder


def recipe_lines(runs, *arguments):
    ran = run_allennlp("recipe", "run", TINY, "--runs", runs, *arguments)
    assert ran.returncode == 0, ran.stderr[-3000:]
    return [line for line in ran.stdout.splitlines() if line[:1].isalpha() or line.startswith("20")]


@pytest.mark.slow
def test_run_skip_by_fingerprint_and_overrides_to_every_training(tmp_path, models):
    runs = str(tmp_path / "runs")
    assert recipe_lines(runs, "--dry-run") == [
        "first      to run: not started",
        "second_s1  to run: after first, which runs first",
        "study      to run: after first, which runs first",
    ]
    ran = run_allennlp("recipe", "run", TINY, "--runs", runs, "-o", ONE_EPOCH)
    assert ran.returncode == 0, ran.stderr[-3000:]
    for folder in ("first", "second_s1"):  # the overrides reach every training
        config = json.loads((tmp_path / "runs" / "tiny" / folder / "config.json").read_text())
        assert config["trainer"]["num_epochs"] == 1 and config["trainer"]["optimizer"]["lr"] == 0.01
        assert (tmp_path / "runs" / "tiny" / folder / "metrics.json").is_file()
    assert (models / "bidaf-quickstart.tar.gz").read_bytes() == (tmp_path / "runs" / "tiny" / "first" / "model.tar.gz").read_bytes()
    assert (models / "bidaf-cpu-scale.tar.gz").is_file()
    assert "installed bidaf-quickstart" in ran.stdout
    results = json.loads((tmp_path / "runs" / "tiny" / "study" / "results.json").read_text())
    assert {pair["model"] for pair in results["pairs"]} == {"first", "second"}

    states = StepStates(load_recipe(TINY, runs=runs), runs, ONE_EPOCH)
    fingerprints = {step.name: states.fingerprint(step)[:12] for step in states.recipe.steps}
    assert recipe_lines(runs, "--dry-run", "-o", ONE_EPOCH) == [
        f"first      skipped: finished, fingerprint {fingerprints['first']}",
        f"second_s1  skipped: finished, fingerprint {fingerprints['second_s1']}",
        f"study      skipped: finished, fingerprint {fingerprints['study']}",
    ]
    again = run_allennlp("recipe", "run", TINY, "--runs", runs, "-o", ONE_EPOCH)
    assert again.returncode == 0 and "train " not in again.stdout and "skip bidaf-quickstart: installed" in again.stdout
    assert "skip study: finished, fingerprint" in again.stdout

    # other overrides: the trainings are stale (their config changed) and the study runs after them
    assert recipe_lines(runs, "--dry-run") == [
        "first      to run: stale: trainer.num_epochs is 2 here, 1 in its config.json",
        "second_s1  to run: after first, which runs first",
        "study      to run: after first, which runs first",
    ]
    status = run_allennlp("recipe", "status", TINY, "--runs", runs)
    assert "  study      skipped: finished" in status.stdout  # its needs are not made again yet
    assert f"card bidaf-cpu-scale: installed {models}/bidaf-cpu-scale.tar.gz" in status.stdout
    # trained again, the stale run is kept aside, not deleted
    ran = run_allennlp("recipe", "run", TINY, "first", "--runs", runs)
    assert ran.returncode == 0, ran.stderr[-3000:]
    kept = tmp_path / "runs" / "tiny" / "first.stale-1"
    assert f"first: the stale run is kept as {kept}" in ran.stdout and (kept / "metrics.json").is_file()
    assert json.loads((tmp_path / "runs" / "tiny" / "first" / "config.json").read_text())["trainer"]["num_epochs"] == 2


@pytest.mark.slow
def test_a_training_stopped_between_epochs_resumes_and_the_study_waits(tmp_path, models, monkeypatch):
    runs = str(tmp_path / "runs")
    recipe = load_recipe(TINY, runs=runs)
    stop = json.dumps({"trainer.callbacks": [{"type": "test_recipe_stop_in_epoch", "epoch": 1}]})
    with training_state_kept(), pytest.raises(KeyboardInterrupt):
        run_recipe(recipe, ["first"], runs=runs, overrides=stop)
    first = tmp_path / "runs" / "tiny" / "first"
    assert (first / "model.tar.gz").is_file() and not (first / "metrics.json").exists()
    assert recipe_lines(runs, "--dry-run", "-o", stop) == [
        "first      resumed: epoch 1 of 2",
        "second_s1  to run: after first, which runs first",
        "study      to run: after first, which runs first",
    ]
    # the study needs what only a finished training makes
    blocked = run_allennlp("recipe", "run", TINY, "study", "--runs", runs, "-o", stop)
    assert blocked.returncode == 1 and blocked.stderr.strip().splitlines()[-1] == (
        "error: recipe tiny: study needs first, which has not finished; run `allennlp recipe run tiny first` first (or name both)")
    # carried to another machine: the snapshot of the stopped training, and a clone without its folder
    snapshots = tmp_path / "snapshots"
    saved = run_allennlp("recipe", "snapshot", TINY, "--runs", runs, "--snapshots", snapshots)
    assert saved.returncode == 0 and f"({first})" in saved.stdout, saved.stderr[-2000:]
    shutil.rmtree(first)
    assert recipe_lines(runs, "--dry-run", "-o", stop)[0] == "first      to run: not started"
    monkeypatch.setitem(STOPPING, "on", False)
    ran = run_allennlp("recipe", "run", TINY, "--runs", runs, "--until", "first", "-o", stop, "--snapshots", snapshots)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert "restored the snapshot" in ran.stdout
    assert "(--recover from epoch 1)" in ran.stdout and "second_s1" not in ran.stdout
    assert "reads the data of the 1 epoch(s) done again, without training" in ran.stdout
    assert (first / "metrics.json").is_file() and (models / "bidaf-quickstart.tar.gz").is_file()


@pytest.mark.slow
def test_a_changed_study_file_or_a_need_made_again_runs_the_study_again(tmp_path, models):
    runs = str(tmp_path / "runs")
    folder = tmp_path / "recipe"
    shutil.copytree(TINY, folder)
    recipe_file = folder / "recipe.jsonnet"
    recipe_file.write_text(recipe_file.read_text().replace("tests/fixtures/recipes/tiny/study.jsonnet", str(folder / "study.jsonnet"))
                           .replace("'tests/fixtures/", f"'{FIXTURES}/"))
    ran = run_allennlp("recipe", "run", str(folder), "--runs", runs, "-o", ONE_EPOCH, cwd=ROOT)
    assert ran.returncode == 0, ran.stderr[-3000:]
    # made before the runner stamped them (the stamps gone): what lies in the runs folder counts
    shutil.rmtree(tmp_path / "runs" / ".recipes")
    assert [line.split(", fingerprint ")[0] + " " + line.split(" (")[-1] for line in recipe_lines_of(folder, runs)] == [
        "first      skipped: finished trained before its stamp)", "second_s1  skipped: finished trained before its stamp)",
        "study      skipped: finished made before its stamp)"]
    again = run_allennlp("recipe", "run", str(folder), "--runs", runs, "-o", ONE_EPOCH)
    assert again.returncode == 0 and "train " not in again.stdout
    assert all(" (" not in line for line in recipe_lines_of(folder, runs))  # stamped now
    study = folder / "study.jsonnet"
    study.write_text(study.read_text().replace("batch_size: 3", "batch_size: 2"))
    assert recipe_lines_of(folder, runs)[-1] == "study      to run: stale: its config, command or input files changed"
    shutil.rmtree(tmp_path / "runs" / "tiny" / "second_s1")
    assert recipe_lines_of(folder, runs)[1:] == [
        "second_s1  to run: not started", "study      to run: after second_s1, which runs first"]
    ran = run_allennlp("recipe", "run", str(folder), "second", "--runs", runs, "-o", ONE_EPOCH)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert recipe_lines_of(folder, runs)[-1] == "study      to run: stale: second_s1 was made again since"


def recipe_lines_of(folder, runs):
    ran = run_allennlp("recipe", "run", str(folder), "--runs", runs, "-o", ONE_EPOCH, "--dry-run")
    assert ran.returncode == 0, ran.stderr[-3000:]
    return ran.stdout.splitlines()


COMMANDS = """function(runs='runs') {
  description: 'command steps',
  steps: {
    made: {
      command: ['python', '-c', "import os, sys; open(sys.argv[1], 'w').write(os.environ['OMP_NUM_THREADS'] + os.environ['WHO'])",
                runs + '/made.txt'],
      env: { WHO: 'made' },
      outputs: [runs + '/made.txt'],
    },
    failing: { command: ['sh', '-c', 'exit 3'], outputs: [runs + '/failing.txt'], optional: true },
    forgetful: { command: ['true'], outputs: [runs + '/forgetful.txt'], optional: true },
  },
}
"""


def command_recipe(tmp_path):
    folder = tmp_path / "commands"
    folder.mkdir()
    (folder / "recipe.jsonnet").write_text(COMMANDS)
    runs = str(tmp_path / "runs")
    return load_recipe(str(folder), runs=runs), runs


def test_command_steps_run_with_their_variables_and_threads_then_are_skipped(tmp_path, capsys):
    recipe, runs = command_recipe(tmp_path)
    run_recipe(recipe, [], runs=runs, threads=3)
    assert (tmp_path / "runs" / "made.txt").read_text() == "3made"
    assert "made: python -c import os, sys;" in capsys.readouterr().out
    run_recipe(recipe, [], runs=runs)
    assert " skip made: finished, fingerprint " in capsys.readouterr().out


def test_a_failing_command_or_a_missing_output_is_one_line(tmp_path):
    from srcframework.common.errors import InputError

    recipe, runs = command_recipe(tmp_path)
    with pytest.raises(InputError) as failed:
        run_recipe(recipe, ["failing"], runs=runs)
    assert str(failed.value) == "recipe commands: step failing failed (exit status 3): sh -c exit 3"
    with pytest.raises(InputError) as forgot:
        run_recipe(recipe, ["forgetful"], runs=runs)
    assert str(forgot.value) == f"recipe commands: step forgetful ended without making {runs}/forgetful.txt"
    assert StepStates(recipe, runs).state(recipe.step("forgetful")).line() == f"to run: {runs}/forgetful.txt is missing"


def test_allennlp_and_python_are_this_installations():
    import sys

    from srcframework.recipes.recipe import Step
    from srcframework.recipes.runner import _command

    assert _command(Step("a", command=("allennlp", "compare", "s.jsonnet"))) == [sys.executable, "-m", "allennlp", "compare", "s.jsonnet"]
    assert _command(Step("p", command=("python", "x.py"))) == [sys.executable, "x.py"]
    assert _command(Step("o", command=("sh", "-c", "true"))) == ["sh", "-c", "true"]


def test_a_stale_run_is_kept_beside_the_earlier_ones(tmp_path):
    from srcframework.recipes.runner import _set_aside

    run = tmp_path / "first"
    (tmp_path / "first.stale-1").mkdir()
    run.mkdir()
    (run / "metrics.json").write_text("{}")
    assert _set_aside(str(run)) == f"{run}.stale-2"
    assert not run.exists() and (tmp_path / "first.stale-2" / "metrics.json").is_file()
    assert (tmp_path / "first.stale-1").is_dir()
