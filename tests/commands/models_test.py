import json
import sys

import pytest
from allennlp.commands import main

from srcframework.commands import models  # noqa: F401  (registers the subcommand)
from srcframework.pretrained import ModelArchiveNotFound
from tests.pretrained_test import CONTEXT, tiny_card


def allennlp(monkeypatch, capsys, *arguments) -> str:
    monkeypatch.setattr(sys, "argv", ["allennlp", *arguments])
    main(prog="allennlp")
    return capsys.readouterr().out


@pytest.fixture
def places(tmp_path, monkeypatch, tiny_archive):
    models_dir, cards = tmp_path / "models", tmp_path / "cards"
    cards.mkdir()
    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(models_dir))
    monkeypatch.setenv("SRCFRAMEWORK_MODELCARDS", str(cards))
    tiny_card(cards, "tiny-bidaf", str(tiny_archive))
    tiny_card(cards, "unmade", "runs/nowhere/model.tar.gz")
    return models_dir, cards


def test_list_install_path(places, tiny_archive, monkeypatch, capsys):
    models_dir, cards = places
    lines = allennlp(monkeypatch, capsys, "models").splitlines()
    assert lines[0].split() == ["MODEL", "ARCHIVE", "WHERE"]
    assert lines[1].split() == ["tiny-bidaf", "built", str(tiny_archive)]
    assert lines[2].split()[:3] == ["unmade", "to", "train"] and lines[2].endswith("`make unmade` (a second)")
    assert lines[3] == f"models folder: {models_dir} ($SRCFRAMEWORK_MODELS); cards: {cards} ($SRCFRAMEWORK_MODELCARDS)"
    installed = str(models_dir / "tiny-bidaf.tar.gz")
    assert allennlp(monkeypatch, capsys, "models", "install", "tiny-bidaf").strip() == installed
    listed = json.loads(allennlp(monkeypatch, capsys, "models", "list", "--json"))
    assert listed[0]["id"] == "tiny-bidaf" and listed[0]["archive"] == "installed"
    assert listed[0]["where"] == str(models_dir / "tiny-bidaf.tar.gz")
    assert listed[1]["command"] == "make unmade" and listed[1]["output"] == "runs/nowhere/model.tar.gz"
    assert json.loads(allennlp(monkeypatch, capsys, "models", "--json"))[0]["archive"] == "installed"
    assert allennlp(monkeypatch, capsys, "models", "path", "tiny-bidaf").strip() == installed
    with pytest.raises(ModelArchiveNotFound, match="it is made by `make unmade`"):
        allennlp(monkeypatch, capsys, "models", "path", "unmade")


def test_install_by_archive_then_predict(places, tiny_archive, monkeypatch, capsys):
    from srcframework.pretrained import load_predictor

    models_dir, _ = places
    assert allennlp(monkeypatch, capsys, "models", "install", "--archive", str(tiny_archive)).strip() == \
        str(models_dir / "tiny-bidaf.tar.gz")
    answer = load_predictor("tiny-bidaf").predict_json({"context": CONTEXT, "question": "Who dredged the harbour?"})
    assert answer["best_span_str"] in CONTEXT


def test_metrics_and_table(places, monkeypatch, capsys, tmp_path):
    metrics = tmp_path / "metrics.json"
    metrics.write_text(json.dumps({"em": 0.5, "f1": 0.625}))
    assert allennlp(monkeypatch, capsys, "models", "metrics", "tiny-bidaf", "--results", str(metrics)).strip() == \
        f"allennlp evaluate ({metrics}): EM 50.0, F1 62.5."
    table = allennlp(monkeypatch, capsys, "models", "table").splitlines()
    assert table[0] == "| model | what it is | clean F1 | mean drop | made by | time here |"
    assert table[2].startswith("| `tiny-bidaf` |") and "| 62.5 | - |" in table[2]
    assert "| not run yet | not run yet |" in table[3]
    page = tmp_path / "README.md"
    page.write_text("<!-- models table -->\n<!-- /models table -->\n")
    assert allennlp(monkeypatch, capsys, "models", "table", "--into", str(page)).strip() == \
        f"the models table (2 models) -> {page}"
    assert page.read_text() == "<!-- models table -->\n" + "\n".join(table) + "\n<!-- /models table -->\n"


def test_metrics_of_every_card_whose_results_are_there(places, monkeypatch, capsys, tmp_path):
    metrics = tmp_path / "metrics.json"
    metrics.write_text(json.dumps({"em": 0.5, "f1": 0.625}))
    _, cards = places
    card = json.loads((cards / "tiny-bidaf.json").read_text())
    card["model_usage"]["results"] = str(metrics)
    (cards / "tiny-bidaf.json").write_text(json.dumps(card))
    assert allennlp(monkeypatch, capsys, "models", "metrics", "--all").splitlines() == [
        f"tiny-bidaf: allennlp evaluate ({metrics}): EM 50.0, F1 62.5.",
        "unmade: skipped: no results file recipes/quickstart/results.json yet"]
    assert json.loads((cards / "tiny-bidaf.json").read_text())["quantitative_analyses"]["unitary_results"] == \
        f"allennlp evaluate ({metrics}): EM 50.0, F1 62.5."
    # a study that left the card's model out (an optional model) is a reason to skip it
    metrics.write_text(json.dumps({"study": "s", "models": [{"name": "other", "archive": "o.tar.gz"}], "pairs": []}))
    assert allennlp(monkeypatch, capsys, "models", "metrics", "--all").splitlines()[0].startswith(
        "tiny-bidaf: skipped: the study names no model with tiny-bidaf's archive")
    from srcframework.common.errors import InputError

    for arguments in ([], ["tiny-bidaf", "--all"], ["--all", "--results", str(metrics)]):
        with pytest.raises(InputError, match="give a card id .* or --all"):
            allennlp(monkeypatch, capsys, "models", "metrics", *arguments)


@pytest.mark.slow
def test_the_allennlp_command_line(places, tiny_archive):
    """`allennlp models` and its one-line error for a model without an archive: the exit status
    and stderr of a process of its own."""
    from tests.conftest import allennlp_process, run_allennlp

    listed = run_allennlp("models")
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert listed.stdout.splitlines()[1].split() == ["tiny-bidaf", "built", str(tiny_archive)]
    missing = allennlp_process("models", "path", "unmade")
    assert missing.returncode == 1
    assert "Traceback" not in missing.stderr  # above it, only the log's INFO lines
    assert missing.stderr.strip().splitlines()[-1:] == [
        f"error: model 'unmade' has no archive in the models folder ({places[0]}/unmade.tar.gz; $SRCFRAMEWORK_MODELS) "
        "and no hosted copy: it is made by `make unmade` (a second), which writes runs/nowhere/model.tar.gz"
    ]


@pytest.fixture
def repository(tmp_path, monkeypatch, tiny_archive):
    """A repository of the test's own (cards/ beside an empty models/ that `release` fills), with
    the card of a finished copy of the tiny BiDAF's run and a snapshot of that run's folder."""
    import shutil

    from srcframework.store import paths, snapshot

    repo, run, snaps = tmp_path / "repo", tmp_path / "run", tmp_path / "snapshots"
    (repo / "cards").mkdir(parents=True)
    (repo / "models").mkdir()
    snaps.mkdir()
    monkeypatch.setenv("SRCFRAMEWORK_MODELCARDS", str(repo / "cards"))
    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(tmp_path / "installed"))
    monkeypatch.setattr(paths, "snapshots_dir", lambda: str(snaps))
    run.mkdir()
    for name in ("model.tar.gz", "config.json", "metrics.json"):
        shutil.copy(tiny_archive.parent / name, run / name)
    (snaps / "run.json").write_text(json.dumps({"name": "run", "kind": "training", "source": snapshot.source_key(str(run))}))
    (snaps / "run.tar.gz").write_bytes(b"")
    tiny_card(repo / "cards", "tiny-bidaf", str(run / "model.tar.gz"))
    return repo


def test_release_then_verify(repository, monkeypatch, capsys):
    assert allennlp(monkeypatch, capsys, "models", "verify").splitlines() == [
        "0 released archives match their cards; models/ holds 0.0 MB"]
    released = allennlp(monkeypatch, capsys, "models", "release", "tiny-bidaf").splitlines()
    card = json.loads((repository / "cards" / "tiny-bidaf.json").read_text())["model_usage"]
    target = repository / "models" / "tiny-bidaf.tar.gz"
    assert card["archive_file"] == "models/tiny-bidaf.tar.gz" and card["size"] == target.stat().st_size
    assert released[0] == (f"released tiny-bidaf: models/tiny-bidaf.tar.gz ({card['size'] / 1e6:.1f} MB, "
                           f"sha256 {card['sha256'][:16]}...)")
    # the vocabulary's lock file is what AllenNLP's archive holds beyond what the model needs
    assert released[1].startswith("  largest members: ") and released[1].endswith("; left out: vocabulary/.lock 0.00 MB")
    assert released[2] == "  removed the snapshot run of its training (commit the removal with the archive)"
    assert released[3] == "  the card records it: models/tiny-bidaf.tar.gz and its sha256; commit both"
    assert allennlp(monkeypatch, capsys, "models", "verify").splitlines() == [
        f"ok  tiny-bidaf: models/tiny-bidaf.tar.gz ({card['size'] / 1e6:.1f} MB)",
        f"1 released archives match their cards; models/ holds {card['size'] / 1e6:.1f} MB"]


def test_verify_finds_a_wrong_sha256_or_size(repository, monkeypatch, capsys):
    from srcframework.common.errors import InputError

    allennlp(monkeypatch, capsys, "models", "release", "tiny-bidaf")
    card_file = repository / "cards" / "tiny-bidaf.json"
    card = json.loads(card_file.read_text())
    size = card["model_usage"]["size"]
    card["model_usage"]["size"] = size + 1
    card_file.write_text(json.dumps(card))
    with pytest.raises(InputError) as wrong_size:
        allennlp(monkeypatch, capsys, "models", "verify")
    assert str(wrong_size.value) == (f"model 'tiny-bidaf': {repository}/models/tiny-bidaf.tar.gz has {size} bytes, "
                                     f"its card says {size + 1}")
    card["model_usage"]["size"] = size
    card["model_usage"]["sha256"] = "0" * 64
    card_file.write_text(json.dumps(card))
    with pytest.raises(ModelArchiveNotFound, match=r"does not match the sha256 its card records \([0-9a-f]{12}\.\.\. "
                                                   r"against 000000000000\.\.\.\)") as wrong_sha:
        allennlp(monkeypatch, capsys, "models", "verify")
    assert "\n" not in str(wrong_sha.value)
    assert not capsys.readouterr().out.startswith("ok")  # nothing is said to match


def test_release_refuses_a_card_without_an_archive(places, monkeypatch, capsys):
    from srcframework.common.errors import InputFileNotFound

    with pytest.raises(InputFileNotFound, match="model 'unmade': no archive at runs/nowhere/model.tar.gz; "
                                                "it is made by `make unmade` \\(a second\\)"):
        allennlp(monkeypatch, capsys, "models", "release", "unmade")
