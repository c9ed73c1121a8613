"""`make install`'s plugin registration: once srcframework is in AllenNLP's global plugins file,
its subcommands exist in any folder, which `--include-package srcframework` cannot give."""
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SCRIPT = str(ROOT / "scripts" / "register_allennlp_plugin.py")


def register(home, *names):
    env = dict(os.environ, HOME=str(home))
    return subprocess.run([sys.executable, SCRIPT, *names], env=env, capture_output=True, text=True, check=True).stdout


def squad_eval_help(home, cwd):
    env = dict(os.environ, HOME=str(home), OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-m", "allennlp", "squad-eval", "--help", "--include-package", "srcframework"],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_registration_is_idempotent_and_keeps_other_plugins(tmp_path):
    plugins = tmp_path / ".allennlp" / "plugins"
    assert "added srcframework" in register(tmp_path, "srcframework")
    assert plugins.read_text() == "srcframework\n"
    assert "already listed" in register(tmp_path, "srcframework")
    assert plugins.read_text() == "srcframework\n"
    plugins.write_text("my_plugin")  # no final newline
    register(tmp_path, "srcframework")
    register(tmp_path, "srcframework")
    assert plugins.read_text() == "my_plugin\nsrcframework\n"
    assert os.listdir(plugins.parent) == ["plugins"]


def test_a_package_line_beside_its_plugin_module_is_dropped(tmp_path):
    plugins = tmp_path / ".allennlp" / "plugins"
    plugins.parent.mkdir()
    plugins.write_text("srcframework\nmy_plugin\n")  # an older install listed the package
    out = register(tmp_path, "srcframework.allennlp_plugin")
    assert "added srcframework.allennlp_plugin; dropped srcframework (a listed submodule imports it)" in out
    assert plugins.read_text() == "my_plugin\nsrcframework.allennlp_plugin\n"
    assert "already listed" in register(tmp_path, "srcframework.allennlp_plugin", "srcframework")
    assert plugins.read_text() == "my_plugin\nsrcframework.allennlp_plugin\n"


@pytest.mark.slow
def test_subcommands_work_outside_the_repository_once_registered(tmp_path):
    work = tmp_path / "elsewhere"
    work.mkdir()
    before = squad_eval_help(tmp_path, work)
    assert before.returncode != 0 and "invalid choice: 'squad-eval'" in before.stderr
    register(tmp_path, "srcframework.allennlp_plugin")  # what `make install` registers
    after = squad_eval_help(tmp_path, work)
    assert after.returncode == 0, after.stderr[-3000:]
    assert "squad-eval" in after.stdout
    assert after.stderr == ""  # AllenNLP's announcement of each plugin is kept for DEBUG
