import argparse
import json
import sys

import pytest

from srcframework.commands import list_noise
from srcframework.commands.list_noise import first_sentence, listing
from srcframework.common.errors import InputFileNotFound
from srcframework.noise.preset import preset_config, preset_names


def test_lists_every_preset_with_its_configs_and_the_components(capsys):
    result = list_noise.run(argparse.Namespace(name=None, json=False))
    out = capsys.readouterr().out
    assert set(result["presets"]) == set(preset_names())
    for name in ("asr-fast-3voices", "asr-heldout-voice", "keyboard", "misspelling", "back-translation", "noiseqa-mix"):
        assert f"\n{name}\n  " in out
    assert result["presets"]["keyboard"]["config"] == {"type": "keyboard"}
    assert result["presets"]["keyboard"]["resolved"] == {"type": "keyboard", "word_probability": 0.25}
    assert '\nkeyboard\n' in out and '  resolved: {"type": "keyboard", "word_probability": 0.25}' in out
    # every preset is either resolved or says, in one line, why it cannot be built here
    for entry in result["presets"].values():
        assert ("resolved" in entry) != ("error" in entry)
        assert "\n" not in entry.get("error", "")
    components = result["components"]
    assert {"keyboard", "asr", "mix", "preset"} <= set(components["noise sources"])
    assert components["noise sources"]["keyboard"]["builtin"]
    assert {"text", "speecht5"} <= set(components["question and context encoders"])
    assert "pocketsphinx" in components["speech recognizers"] and "flite" in components["speech synthesizers"]
    assert "apertium" in components["translators"]
    assert "\nNOISE SOURCES (" in out and "\nSPEECH RECOGNIZERS (" in out and "\nSPEECH SYNTHESIZERS (" in out
    component_lines = out[out.index("\nNOISE SOURCES ("):].splitlines()
    assert max(len(line) for line in component_lines) <= 100


def test_one_preset_as_json(capsys):
    list_noise.run(argparse.Namespace(name="asr-heldout-voice", json=True))
    printed = json.loads(capsys.readouterr().out)
    assert list(printed) == ["presets"] and list(printed["presets"]) == ["asr-heldout-voice"]
    assert printed["presets"]["asr-heldout-voice"]["config"] == preset_config("asr-heldout-voice")


def test_an_engine_that_cannot_be_built_is_reported(monkeypatch):
    monkeypatch.setattr(list_noise, "preset_config", lambda name: {"type": "mix", "sources": [{"type": "nothing"}]})
    entry = listing("keyboard")["presets"]["keyboard"]
    assert "resolved" not in entry and entry["error"].startswith("ConfigurationError: ")


def test_unknown_preset():
    with pytest.raises(InputFileNotFound, match="no noise preset 'nope'; presets: asr-fast-3voices"):
        listing("nope")


def test_registered_as_a_subcommand(monkeypatch, capsys):
    from allennlp.commands import main

    monkeypatch.setattr(sys, "argv", ["allennlp", "list-noise", "keyboard"])
    main(prog="allennlp")
    assert capsys.readouterr().out.splitlines()[2] == "keyboard"


def test_first_sentence():
    assert first_sentence("Noise from typos. Each word\n  is hit.\n\nMore.") == "Noise from typos."
    assert first_sentence("No full stop") == "No full stop"
