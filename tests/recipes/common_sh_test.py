"""recipes/common.sh, with stand-ins for `allennlp` and `python` that record their calls: a training is
started, resumed with --recover from its last epoch (also when the stop left an archive of its best
epoch so far, as AllenNLP does on Ctrl-C or SIGTERM), skipped once it has finished; `install_model` copies an
archive into the models folder once; `report` copies the study's results.json into the recipe and
fills its README."""
import json
import subprocess

import pytest

from tests.conftest import ROOT
from tests.recipes.markdown_into_test import RESULTS

STAND_IN = """#!/usr/bin/env bash
# `allennlp snapshot ...` (a training first puts back the repository's snapshot of its folder) is logged apart
if [ "$1" = snapshot ]; then echo "$*" >> snapshots.log; exit 0; fi
echo "$*" >> calls.log
folder=$4
mkdir -p "$folder"
echo '{}' > "$folder/config.json"
# stopped after an epoch, AllenNLP archives the best epoch so far; only a finished run writes metrics.json
if [ -n "${STOP:-}" ]; then touch "$folder/model_state_e1_b0.th" "$folder/model.tar.gz"; exit 1; fi
touch "$folder/model_state_e2_b0.th" "$folder/model.tar.gz" "$folder/metrics.json"
"""


def bash(folder, script, **env):
    command = f"source {ROOT}/recipes/common.sh; {script}"
    return subprocess.run(["bash", "-c", command], cwd=folder, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", **env})


@pytest.fixture
def stand_in(tmp_path):
    """The folder, with a stand-in `allennlp train` in its .venv that records its calls."""
    program = tmp_path / ".venv" / "bin" / "allennlp"
    program.parent.mkdir(parents=True)
    program.write_text(STAND_IN)
    program.chmod(0o755)
    return tmp_path


def test_a_training_starts_resumes_and_is_skipped(stand_in):
    stopped = bash(stand_in, "train c.jsonnet runs/m -o '{}'", STOP="1")
    assert stopped.returncode == 1 and "FAILED: c.jsonnet; see runs/m.log" in stopped.stdout
    status = bash(stand_in, "summary runs/m/model.tar.gz; progress runs/m")
    assert "  stopped  runs/m/model.tar.gz (a stopped training's best epoch so far" in status.stdout
    refused = bash(stand_in, "install_model some-card runs/m/model.tar.gz")
    assert refused.returncode == 1 and "not installed: runs/m/model.tar.gz is a stopped training's" in refused.stderr
    unmet = bash(stand_in, "need_finished runs/m 'run the text step first'; echo went on")
    assert unmet.returncode == 1 and "went on" not in unmet.stdout
    assert "missing the finished training runs/m (model.tar.gz and metrics.json): run the text step first" in unmet.stderr
    resumed = bash(stand_in, "train c.jsonnet runs/m -o '{}'")
    assert resumed.returncode == 0 and "(--recover; epochs done: 1;" in resumed.stdout
    skipped = bash(stand_in, "train c.jsonnet runs/m && summary runs/m/model.tar.gz runs/other")
    assert "skip runs/m: archived" in skipped.stdout
    assert "  done     runs/m/model.tar.gz\n  missing  runs/other\n" in skipped.stdout
    assert (stand_in / "calls.log").read_text().splitlines() == [
        "train c.jsonnet -s runs/m -f -o {}", "train c.jsonnet -s runs/m --recover -o {}"]
    # each start asks for the repository's snapshot of the folder first (a new machine continues from it)
    assert (stand_in / "snapshots.log").read_text().splitlines() == ["snapshot restore --if-any runs/m"] * 2


def test_snapshot_under_way_takes_only_unfinished_work(stand_in):
    bash(stand_in, "train c.jsonnet runs/done")
    bash(stand_in, "train c.jsonnet runs/stopped", STOP="1")
    (stand_in / "runs" / "noisy.json.journal-0-of-1.jsonl").write_text("{}\n")
    (stand_in / "snapshots.log").unlink()
    done = bash(stand_in, "snapshot_under_way runs/done runs/stopped runs/never runs/noisy.json")
    assert done.returncode == 0
    assert (stand_in / "snapshots.log").read_text().splitlines() == [
        "snapshot save runs/stopped", "snapshot save runs/noisy.json"]


def test_train_overrides_reach_allennlp_train(stand_in):
    done = bash(stand_in, "train c.jsonnet runs/m", TRAIN_OVERRIDES='{"trainer": {"num_epochs": 1}}')
    assert done.returncode == 0, done.stdout + done.stderr
    assert (stand_in / "calls.log").read_text().splitlines() == [
        'train c.jsonnet -s runs/m -f -o {"trainer": {"num_epochs": 1}}']


def test_report_copies_the_results_and_fills_the_readme(tmp_path):
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    for program in ("python", "allennlp"):  # markdown_into_test and model_cards_test test what they run
        (venv / program).write_text('#!/usr/bin/env bash\necho "$(basename $0) $*" >> calls.log\n')
        (venv / program).chmod(0o755)
    (tmp_path / "recipe").mkdir()
    (tmp_path / "recipe" / "README.md").write_text("<!-- results:study -->\nNot yet run here.\n<!-- /results:study -->\n")
    missing = bash(tmp_path, "report out/results.json recipe")
    assert missing.returncode == 1 and "missing out/results.json: run the study step first" in missing.stderr
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "results.json").write_text(json.dumps(RESULTS))
    done = bash(tmp_path, "report out/results.json recipe")
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "recipe" / "results.json").read_text()) == RESULTS
    assert (tmp_path / "calls.log").read_text().splitlines() == [
        "python -m srcframework.studies.markdown_into recipe/results.json recipe/README.md",
        "allennlp models metrics --all", "allennlp models table --into README.md"]
    assert "results: recipe/results.json, the table in recipe/README.md, the model cards and README.md's models " \
           "table (commit them)" in done.stdout


INSTALL_STAND_IN = """#!/usr/bin/env bash
# `allennlp snapshot ...` (a training first puts back the repository's snapshot of its folder) is logged apart
if [ "$1" = snapshot ]; then echo "$*" >> snapshots.log; exit 0; fi
echo "$*" >> calls.log
mkdir -p "$SRCFRAMEWORK_MODELS" && cp "$5" "$SRCFRAMEWORK_MODELS/$3.tar.gz"
"""


def test_install_model_copies_an_archive_once(tmp_path):
    stand_in = tmp_path / ".venv" / "bin" / "allennlp"
    stand_in.parent.mkdir(parents=True)
    stand_in.write_text(INSTALL_STAND_IN)
    stand_in.chmod(0o755)
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "model.tar.gz").write_text("weights")
    (tmp_path / "runs" / "metrics.json").write_text("{}")  # the training ran to its end
    models = tmp_path / "models"
    missing = bash(tmp_path, "install_model some-card runs/none.tar.gz", SRCFRAMEWORK_MODELS=str(models))
    assert missing.returncode == 1 and "missing runs/none.tar.gz: its training has not finished" in missing.stderr
    first = bash(tmp_path, "install_model some-card runs/model.tar.gz", SRCFRAMEWORK_MODELS=str(models))
    assert first.returncode == 0 and f"installed some-card: {models}/some-card.tar.gz" in first.stdout
    again = bash(tmp_path, "install_model some-card runs/model.tar.gz", SRCFRAMEWORK_MODELS=str(models))
    assert again.returncode == 0 and "skip some-card: installed" in again.stdout
    (tmp_path / "runs" / "model.tar.gz").write_text("retrained")
    bash(tmp_path, "install_model some-card runs/model.tar.gz", SRCFRAMEWORK_MODELS=str(models))
    assert (models / "some-card.tar.gz").read_text() == "retrained"
    assert (tmp_path / "calls.log").read_text().splitlines() == [
        "models install some-card --archive runs/model.tar.gz"] * 2


@pytest.mark.parametrize("env", [
    {"SRCFRAMEWORK_MODELS": "/m"}, {"XDG_CACHE_HOME": "/c"}, {"XDG_CACHE_HOME": "/c", "SRCFRAMEWORK_MODELS": ""}, {},
])
def test_the_models_folder_is_the_one_allennlp_models_uses(tmp_path, monkeypatch, env):
    from srcframework.pretrained import models_folder

    for name in ("SRCFRAMEWORK_MODELS", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HOME", str(tmp_path))
    shell = bash(tmp_path, "installed a-card", HOME=str(tmp_path), **env)
    assert shell.stdout.strip() == f"{models_folder()}/a-card.tar.gz"
