"""One-line errors of the `allennlp` command line, and the traceback in debug mode."""
import json
import os
import subprocess
import sys

import pytest

from srcframework.commands import cli_errors
from srcframework.data.errors import DatasetError
from tests.conftest import FIXTURES, ROOT


def allennlp(*arguments, debug_env=None):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop(cli_errors.DEBUG_ENV, None)
    if debug_env is not None:
        env[cli_errors.DEBUG_ENV] = debug_env
    command = [sys.executable, "-m", "allennlp", *arguments]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture
def bad_data(tmp_path):
    path = tmp_path / "bad.json"
    data = json.loads((FIXTURES / "squad_tiny.json").read_text())
    data["data"][0]["paragraphs"][0]["qas"][0]["answers"][0]["text"] = "   "
    path.write_text(json.dumps(data))
    return path


def test_a_dataset_error_is_one_line(bad_data, tmp_path):
    predictions = tmp_path / "p.json"
    predictions.write_text('{"q1": "1882"}')
    done = allennlp("squad-eval", str(bad_data), str(predictions))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == f"error: {bad_data} (question id 'q1'): empty answer text"
    assert "Traceback" not in done.stderr


def test_a_configuration_error_of_a_built_in_command_is_one_line(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"dataset_reader": {"type": "no_such_reader"}, "model": {"type": "span_qa"}}))
    done = allennlp("train", str(config), "-s", str(tmp_path / "run"))
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and "no_such_reader" in last, done.stderr[-2000:]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("how", ["flag", "env"])
def test_debug_shows_the_traceback(bad_data, tmp_path, how):
    predictions = tmp_path / "p.json"
    predictions.write_text('{"q1": "1882"}')
    arguments = ["squad-eval", str(bad_data), str(predictions)]
    done = allennlp("--debug", *arguments) if how == "flag" else allennlp(*arguments, debug_env="1")
    assert done.returncode == 1
    assert "Traceback (most recent call last)" in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("srcframework.data.errors.DatasetError: ")


def test_other_exceptions_keep_their_traceback(capsys):
    try:
        raise KeyError("x")
    except KeyError as error:
        cli_errors.excepthook(KeyError, error, error.__traceback__)
    assert "Traceback" in capsys.readouterr().err


def test_hook_in_process(capsys, monkeypatch):
    monkeypatch.delenv(cli_errors.DEBUG_ENV, raising=False)
    error = DatasetError("data.json", "first line\nsecond line", "q7")
    cli_errors.excepthook(DatasetError, error, None)
    assert capsys.readouterr().err == "error: data.json (question id 'q7'): first line second line\n"


def test_detects_the_command_line():
    assert cli_errors.subcommand(["/x/bin/allennlp", "--debug", "list-plugins", "--json"]) == "list-plugins"
    assert cli_errors.running_allennlp_cli(["/x/bin/allennlp", "evaluate"])
    assert not cli_errors.running_allennlp_cli(["/x/bin/pytest", "tests"])
