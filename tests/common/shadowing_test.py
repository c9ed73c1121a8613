"""Run from the folder that holds a clone, `import srcframework` finds the clone's folder (a
namespace package) instead of the installed package: that is said in one line, with what to do,
instead of errors about names that are not registered."""
import os
import subprocess
import sys

import pytest

from srcframework.common import shadowing
from tests.conftest import ROOT

EXPECTED_START = "`import srcframework` found {folder}, a folder without __init__.py"
EXPECTED_END = f"not the package in {ROOT / 'srcframework'}, so no component is registered: " \
               "run from inside the clone or from any other folder"


@pytest.fixture
def above_a_clone(tmp_path):
    """A folder holding a folder named srcframework without __init__.py, as a clone is."""
    clone = tmp_path / "srcframework"
    (clone / "docs").mkdir(parents=True)
    (clone / "README.md").write_text("a clone\n")
    return tmp_path


def run(cwd, *command, home=None):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("PYTHONPATH", None)
    env.pop("SRCFRAMEWORK_DEBUG", None)
    if home is not None:
        env["HOME"] = str(home)
    return subprocess.run([sys.executable, *command], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_a_program_is_told_in_its_last_line(above_a_clone):
    done = run(above_a_clone, "-c", "from srcframework.pretrained import load_predictor")
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    prefix = "srcframework.common.shadowing.ShadowedPackageError: "
    assert last.startswith(prefix + EXPECTED_START.format(folder=above_a_clone / "srcframework")), done.stderr
    assert last.endswith(EXPECTED_END)


@pytest.mark.slow
def test_the_command_line_stops_with_one_line(above_a_clone, tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    (home / ".allennlp").mkdir()
    (home / ".allennlp" / "plugins").write_text("srcframework.allennlp_plugin\n")  # as `make install` writes it
    done = run(above_a_clone, "-m", "allennlp", "list-noise", home=home)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: " + EXPECTED_START.format(folder=above_a_clone / "srcframework")), done.stderr
    assert last.endswith(EXPECTED_END)


def test_the_installed_package_is_not_shadowed_here():
    assert shadowing.shadowing_message() is None
