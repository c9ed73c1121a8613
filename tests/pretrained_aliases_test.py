"""The robust-training cards were renamed (`bidaf-robust` -> `bidaf-noise-augmented`, `minilm-qa-robust`
-> `minilm-qa-noise-augmented`): the old ids still load, and say once that they are deprecated."""
import json
import logging

import pytest

from srcframework import pretrained
from srcframework.pretrained import deprecated_ids, install, installed_path, load_predictor, model_card, model_cards
from tests.conftest import ROOT

RENAMED = {"bidaf-robust": "bidaf-noise-augmented", "minilm-qa-robust": "minilm-qa-noise-augmented"}


@pytest.fixture
def fresh_warnings(monkeypatch):
    """Each old id warns once per process: start from a process that has not warned yet."""
    monkeypatch.setattr(pretrained, "_warned_deprecated", set())


def deprecation_lines(caplog):
    return [r.getMessage() for r in caplog.records if r.name == "srcframework.pretrained" and "deprecated" in r.getMessage()]


def test_the_cards_carry_their_old_ids():
    assert deprecated_ids() == RENAMED
    for old, new in RENAMED.items():
        card = json.loads((ROOT / "srcframework" / "modelcards" / f"{new}.json").read_text())
        assert card["id"] == new and card["deprecated_ids"] == [old]
        assert not (ROOT / "srcframework" / "modelcards" / f"{old}.json").exists()
        assert old not in model_cards() and new in model_cards()


@pytest.mark.parametrize("old, new", sorted(RENAMED.items()))
def test_an_old_id_reads_its_renamed_card_with_one_deprecation_line(old, new, fresh_warnings, caplog):
    with caplog.at_level(logging.WARNING, logger="srcframework.pretrained"):
        assert model_card(old).id == new
        assert model_card(old).id == new  # a second use says nothing more
    assert deprecation_lines(caplog) == [f"model id {old!r} is deprecated: it is now {new!r} (the old id still loads)"]


def test_an_old_id_installs_and_loads_the_renamed_models_archive(tiny_archive, tmp_path, monkeypatch, fresh_warnings,
                                                                  caplog):
    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(tmp_path / "models"))
    with caplog.at_level(logging.WARNING, logger="srcframework.pretrained"):
        target = install("bidaf-robust", str(tiny_archive))
        assert target == installed_path("bidaf-noise-augmented")
        predictor = load_predictor("bidaf-robust")
    assert len(deprecation_lines(caplog)) == 1
    found = predictor.predict_json({"question": "Who wrote it?", "context": "Ada wrote it."})
    assert "best_span_str" in found


def test_the_new_ids_say_nothing(fresh_warnings, caplog):
    with caplog.at_level(logging.WARNING, logger="srcframework.pretrained"):
        for new in RENAMED.values():
            model_card(new)
    assert deprecation_lines(caplog) == []
