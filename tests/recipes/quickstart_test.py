"""The quickstart recipe end to end on the embedded data, run in this process by `allennlp recipe
run quickstart --until study` (here one epoch on the first 64 training questions): it trains,
installs the archive under the card id in the models folder, and runs the recipe's study. The card
id still loads the release in the clone (a released id loads only the archive its card's sha256
names, and the clone's release comes first): a predictor that answers, listed as released."""
import json
import subprocess

from tests.conftest import ROOT, run_allennlp
import pytest

# dotted keys change one value each and keep the rest of the config's blocks (a "trainer" key would
# replace the whole trainer block, its optimizer and callbacks too)
SMALL = {
    "trainer.num_epochs": 1,
    "dataset_reader.max_instances": 64,
    "vocabulary.reader.max_instances": 64,
    "validation_dataset_reader.max_instances": 32,
}


@pytest.mark.slow
def test_run_then_the_card_id_loads_a_predictor_that_answers(tmp_path, monkeypatch):
    models, runs = tmp_path / "models", tmp_path / "runs"
    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(models))
    arguments = ("recipe", "run", "quickstart", "--runs", runs, "-o", json.dumps(SMALL), "--threads", "1")
    trained = run_allennlp(*arguments, "--until", "quickstart")
    assert trained.returncode == 0, trained.stdout + trained.stderr[-3000:]
    out = runs / "quickstart"
    assert (models / "bidaf-quickstart.tar.gz").read_bytes() == (out / "model.tar.gz").read_bytes()
    assert "installed bidaf-quickstart" in trained.stdout
    config = json.loads((out / "config.json").read_text())
    assert config["trainer"]["num_epochs"] == 1 and config["dataset_reader"]["max_instances"] == 64
    assert config["trainer"]["optimizer"] == {"type": "adam", "lr": 0.002, "betas": [0.9, 0.9]}  # kept
    again = run_allennlp(*arguments, "--until", "quickstart")  # nothing trained or copied again
    assert again.returncode == 0 and "skip quickstart: finished" in again.stdout and "skip bidaf-quickstart: installed" in again.stdout

    from srcframework.pretrained import archive_status, load_predictor, model_card

    assert archive_status(model_card("bidaf-quickstart")) == ("released", str(ROOT / "models" / "bidaf-quickstart.tar.gz"))
    context = "The harbour of Velmont was dredged in 1911, and the first steamer docked there a year later."
    answer = load_predictor("bidaf-quickstart").predict_json({"context": context, "question": "When was the harbour dredged?"})
    assert answer["best_span_str"] and answer["best_span_str"] in context
    listed = subprocess.run([str(ROOT / ".venv" / "bin" / "allennlp"), "models"], cwd=ROOT, capture_output=True,
                            text=True, env={"PATH": "/usr/bin:/bin", "SRCFRAMEWORK_MODELS": str(models), "HOME": str(tmp_path)})
    line = next(row for row in listed.stdout.splitlines() if "bidaf-quickstart" in row)
    assert "released" in line and "models/bidaf-quickstart.tar.gz" in line

    studied = run_allennlp(*arguments, "--until", "study")
    assert studied.returncode == 0, studied.stdout + studied.stderr[-3000:]
    results = json.loads((out / "study" / "results.json").read_text())
    assert {(pair["model"], pair["set"]) for pair in results["pairs"]} == {
        ("quickstart", "clean"), ("quickstart", "keyboard"), ("quickstart", "misspelling")}
