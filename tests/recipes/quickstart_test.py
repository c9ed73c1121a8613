"""The quickstart recipe end to end on the embedded data: its run.sh trains (here one epoch on the
first 64 training questions), installs the archive under the card id, and the card id is then
enough to load a predictor that answers, to list the model as installed (the `allennlp` console
script) and to run the recipe's study."""
import json
import os
import subprocess

import pytest

from tests.conftest import ROOT

# dotted keys change one value each and keep the rest of the config's blocks (a "trainer" key would
# replace the whole trainer block, its optimizer and callbacks too)
SMALL = {
    "trainer.num_epochs": 1,
    "dataset_reader.max_instances": 64,
    "vocabulary.reader.max_instances": 64,
    "validation_dataset_reader.max_instances": 32,
}


def recipe(step: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "recipes/quickstart/run.sh", step], cwd=ROOT, capture_output=True, text=True,
                          env=env, timeout=900)


@pytest.mark.slow
def test_run_then_the_card_id_loads_a_predictor_that_answers(tmp_path, monkeypatch):
    models, out = tmp_path / "models", tmp_path / "quickstart"
    env = dict(os.environ, SRCFRAMEWORK_MODELS=str(models), QUICKSTART_OUT=str(out), OMP_NUM_THREADS="1",
               TRAIN_OVERRIDES=json.dumps(SMALL))
    trained = recipe("train", env)
    assert trained.returncode == 0, trained.stdout + trained.stderr
    assert (out / "model.tar.gz").is_file()
    assert (models / "bidaf-quickstart.tar.gz").read_bytes() == (out / "model.tar.gz").read_bytes()
    assert "installed bidaf-quickstart" in trained.stdout
    config = json.loads((out / "config.json").read_text())
    assert config["trainer"]["num_epochs"] == 1 and config["dataset_reader"]["max_instances"] == 64
    assert config["trainer"]["optimizer"] == {"type": "adam", "lr": 0.002, "betas": [0.9, 0.9]}  # kept
    again = recipe("train", env)  # idempotent: nothing trained or copied again
    assert again.returncode == 0 and "skip" in again.stdout and "skip bidaf-quickstart: installed" in again.stdout

    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(models))
    from srcframework.pretrained import archive_status, load_predictor, model_card

    assert archive_status(model_card("bidaf-quickstart"))[0] == "installed"
    context = "The harbour of Velmont was dredged in 1911, and the first steamer docked there a year later."
    answer = load_predictor("bidaf-quickstart").predict_json({"context": context, "question": "When was the harbour dredged?"})
    assert answer["best_span_str"] and answer["best_span_str"] in context
    listed = subprocess.run([str(ROOT / ".venv" / "bin" / "allennlp"), "models"], cwd=ROOT, capture_output=True,
                            text=True, env=env)
    line = next(row for row in listed.stdout.splitlines() if "bidaf-quickstart" in row)
    assert "installed" in line and str(models) in line

    studied = recipe("study", env)
    assert studied.returncode == 0, studied.stdout + studied.stderr
    results = json.loads((out / "study" / "results.json").read_text())
    assert {(pair["model"], pair["set"]) for pair in results["pairs"]} == {
        ("quickstart", "clean"), ("quickstart", "keyboard"), ("quickstart", "misspelling")}
