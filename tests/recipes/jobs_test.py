"""The registered recipe jobs (srcframework/recipes/jobs.py) built from a step's `job` object as
the runner builds them: `transcribe` (a missing decoder-tuning result is one line; a spoken folder
transcribed), `release` (a card's finished training into models/, its sha256 into the card) and
`report` with the model cards (their figures and README's models table) and the study's
per-question record beside the results."""
import json
import shutil
import tarfile

import pytest
from allennlp.common import Params

from srcframework.common.errors import InputError, InputFileNotFound
from srcframework.recipes.jobs import RecipeJob
from srcframework.studies.records import record_members
from tests.pretrained_test import tiny_card
from tests.recipes.markdown_into_test import RESULTS
from tests.studies.records_test import record_files


def job(**params) -> RecipeJob:
    return RecipeJob.from_params(Params(params))


def test_a_job_says_what_it_runs():
    with pytest.raises(NotImplementedError):
        RecipeJob().run()


def test_transcribe_needs_its_decoder_tuning_first(tmp_path):
    transcribe = job(type="transcribe", folder=str(tmp_path / "src"), output=str(tmp_path / "out.json"),
                     recognizer={"type": "pocketsphinx"}, decoder_from=str(tmp_path / "decoder.json"))
    with pytest.raises(InputFileNotFound, match=f"missing {tmp_path}/decoder.json: run the decoder tuning first"):
        transcribe.run()
    assert not (tmp_path / "out.json").exists()


def test_transcribe_writes_the_transcripts_of_a_spoken_folder(spoken_tiny, tmp_path):
    folder = tmp_path / "src"
    shutil.copytree(spoken_tiny, folder)
    fids = folder / "fid2qid_dev.csv"
    fids.write_text(fids.read_text().splitlines()[0] + "\n")  # one recording is enough
    output = tmp_path / "transcripts.json"
    job(type="transcribe", folder=str(folder), output=str(output), recognizer={"type": "pocketsphinx"}).run()
    transcripts = json.loads(output.read_text())
    assert transcripts["transcription"]["recognizer"] == {"type": "pocketsphinx"}
    assert transcripts["transcription"]["split"] == "dev"
    questions = [qa for article in transcripts["data"] for paragraph in article["paragraphs"] for qa in paragraph["qas"]]
    assert [(qa["id"], qa["fid"], qa["original_question"]) for qa in questions] == [
        ("q1", "DEV000001", "When was the harbour of Velmont dredged?")]
    assert questions[0]["question"] and questions[0]["question"] == questions[0]["question"].lower()  # the recognizer's words
    assert (tmp_path / "transcripts.json.wer.json").is_file()


@pytest.fixture
def repository(tmp_path, monkeypatch):
    """cards/ beside models/ in a folder of the test's own, which is also the working folder (the
    report job writes the models table into ./README.md)."""
    (tmp_path / "cards").mkdir()
    monkeypatch.setenv("SRCFRAMEWORK_MODELCARDS", str(tmp_path / "cards"))
    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(tmp_path / "installed"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_release_job_releases_the_cards_training(repository, tiny_archive):
    run = repository / "run"
    run.mkdir()
    for name in ("model.tar.gz", "config.json", "metrics.json"):
        shutil.copy(tiny_archive.parent / name, run / name)
    tiny_card(repository / "cards", "tiny", str(run / "model.tar.gz"))
    job(type="release", card="tiny").run()
    usage = json.loads((repository / "cards" / "tiny.json").read_text())["model_usage"]
    assert usage["archive_file"] == "models/tiny.tar.gz"
    assert usage["size"] == (repository / "models" / "tiny.tar.gz").stat().st_size and len(usage["sha256"]) == 64
    assert "float16" not in usage


def test_report_job_fills_the_cards_and_the_models_table(repository, tmp_path, capsys):
    results = tmp_path / "study" / "results.json"
    record_files(results.parent, RESULTS)
    recipe = tmp_path / "recipe"
    recipe.mkdir()
    (recipe / "README.md").write_text("<!-- results:study -->\nNot yet run here.\n<!-- /results:study -->\n")
    (repository / "README.md").write_text("# Models\n<!-- models table -->\nold\n<!-- /models table -->\nAfter.\n")
    metrics = tmp_path / "metrics.json"
    metrics.write_text(json.dumps({"em": 0.5, "f1": 0.625}))
    tiny_card(repository / "cards", "tiny", "runs/tiny/model.tar.gz", results=str(metrics))
    job(type="report", results=str(results), recipe=str(recipe)).run()
    assert json.loads((recipe / "results.json").read_text()) == RESULTS
    with tarfile.open(recipe / "pairs.tar.xz") as tar:  # the per-question record beside it
        assert tar.getnames() == record_members(RESULTS)
    assert f"per-question record: {recipe / 'pairs.tar.xz'} (0.0 MB)" in capsys.readouterr().out
    card = json.loads((repository / "cards" / "tiny.json").read_text())
    assert card["quantitative_analyses"]["unitary_results"] == f"allennlp evaluate ({metrics}): EM 50.0, F1 62.5."
    readme = (repository / "README.md").read_text().splitlines()
    assert readme[:3] == ["# Models", "<!-- models table -->", "| model | what it is | clean F1 | mean drop | made by | time here |"]
    assert readme[4].startswith("| `tiny` |") and "| 62.5 | - |" in readme[4] and readme[-2:] == ["<!-- /models table -->", "After."]


def test_report_job_without_a_pair_of_its_results_writes_nothing(tmp_path):
    results = tmp_path / "study" / "results.json"
    record_files(results.parent, RESULTS)
    (results.parent / "pairs" / "bidaf__keyboard" / "predictions.jsonl").unlink()
    recipe = tmp_path / "recipe"
    recipe.mkdir()
    with pytest.raises(InputError, match="no pairs/bidaf__keyboard/predictions.jsonl for the record: rerun the study"):
        job(type="report", results=str(results), recipe=str(recipe), cards=False).run()
    assert list(recipe.iterdir()) == []
