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
    monkeypatch.setattr(list_plugins, "load_plugins", lambda strict=True: REPORT)
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
    monkeypatch.setattr(list_plugins, "load_plugins", lambda strict=True: PluginReport("srcframework"))
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


@pytest.mark.slow
def test_a_name_clash_is_listed_but_stops_other_commands(tmp_path):
    """Two installed distributions offer the noise source `fake_echo`: `allennlp list-plugins`
    shows both sides, while `allennlp noise` and `allennlp evaluate` stop with one line."""
    import subprocess
    import sys

    from tests.conftest import FIXTURES, ROOT
    from tests.plugins.manager_test import clashing_site_env

    env = clashing_site_env(tmp_path)

    def allennlp(*arguments):
        command = [sys.executable, "-m", "allennlp", *arguments]
        return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)

    listed = allennlp("list-plugins")
    assert listed.returncode == 0, listed.stderr[-3000:]
    refused = [line for line in listed.stdout.splitlines() if "refused" in line]
    assert len(refused) == 1 and refused[0].startswith("  fake_echo_b (fake-echo-b 0.1")
    assert "fake_echo_b.Echo" in refused[0] and "fake-echo-a 0.1" in refused[0] and "fake_echo_a.Echo" in refused[0]
    assert any(line.split()[:2] == ["fake_echo_a", "fake-echo-a"] for line in listed.stdout.splitlines())

    data = str(FIXTURES / "squad_tiny.json")
    for arguments in (["noise", data, str(tmp_path / "out.json"), "--noise", "keyboard"],
                      ["evaluate", str(tmp_path / "no_model.tar.gz"), data]):
        done = allennlp(*arguments)
        assert done.returncode != 0
        last = done.stderr.strip().splitlines()[-1]
        assert last.startswith("error: ") and "fake_echo_a.Echo" in last and "fake_echo_b.Echo" in last, done.stderr[-3000:]
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "out.json").exists()
