import argparse
import json

import pytest

from srcframework.commands import list_plugins
from srcframework.plugins.manager import PluginFailure, PluginInfo, PluginReport

REPORT = PluginReport(
    "srcframework",
    plugins=[
        PluginInfo(
            "phonetic", "srcframework_phonetic.plugin", "srcframework-phonetic", "0.1.0",
            {"noise_sources": ["phonetic"]},
        ),
        PluginInfo(
            "speech", "acme_speech.plugin", "acme-speech", "2.3",
            {"speech_recognizers": ["acme_asr"], "speech_synthesizers": ["acme_tts", "acme_tts_fast"]},
        ),
        PluginInfo("empty", "acme_empty", "acme-empty", "1.0"),
    ],
    failures=[
        PluginFailure(
            "broken", "acme_broken.plugin", "acme-broken", "0.9", "import",
            "ModuleNotFoundError: No module named 'torchaudio'",
        ),
    ],
)


@pytest.fixture
def report(monkeypatch):
    monkeypatch.setattr(list_plugins, "load_plugins", lambda: REPORT)
    return REPORT


def test_table(report, capsys):
    assert list_plugins.run(argparse.Namespace(json=False)) is report
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["PLUGIN", "DISTRIBUTION", "VERSION", "ADDS"]
    assert lines[1].split() == ["phonetic", "srcframework-phonetic", "0.1.0", "noise_sources:", "phonetic"]
    assert lines[2].split()[:3] == ["speech", "acme-speech", "2.3"]
    assert lines[2].endswith("speech_recognizers: acme_asr; speech_synthesizers: acme_tts, acme_tts_fast")
    assert lines[3].split() == ["empty", "acme-empty", "1.0", "-"]
    assert len({line.index(line.split()[1]) for line in lines[:4]}) == 1  # aligned columns
    assert lines[5] == "FAILED (1):"
    assert lines[6] == (
        "  broken (acme-broken 0.9, acme_broken.plugin): import failed: "
        "ModuleNotFoundError: No module named 'torchaudio'"
    )


def test_json(report, capsys):
    list_plugins.run(argparse.Namespace(json=True))
    printed = json.loads(capsys.readouterr().out)
    assert printed == report.to_dict()
    assert printed["plugins"][0] == {
        "name": "phonetic",
        "value": "srcframework_phonetic.plugin",
        "distribution": "srcframework-phonetic",
        "version": "0.1.0",
        "added": {"noise_sources": ["phonetic"]},
    }
    assert printed["failures"][0]["stage"] == "import"


def test_no_plugins(monkeypatch, capsys):
    monkeypatch.setattr(list_plugins, "load_plugins", lambda: PluginReport("srcframework"))
    list_plugins.run(argparse.Namespace(json=False))
    assert capsys.readouterr().out == "No plugins installed (entry-point group 'srcframework').\n"


def test_installed_plugins_as_json(capsys):
    list_plugins.run(argparse.Namespace(json=True))
    printed = json.loads(capsys.readouterr().out)
    assert printed["group"] == "srcframework" and set(printed) == {"group", "plugins", "failures"}


def test_subcommand_parser():
    parser = argparse.ArgumentParser()
    list_plugins.ListPlugins().add_subparser(parser.add_subparsers())
    args = parser.parse_args(["list-plugins", "--json"])
    assert args.json and args.func is list_plugins.run
