"""The suite is hermetic: every test (and every process it starts) sees a temporary home, and a
session that writes into the user's cache, `~/.allennlp` or the repository fails at its end, also
under pytest-xdist. A small pytest session run as a process, with a home and a clone of its own
standing in for the user's, shows both."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from srcframework.pretrained import installed_path
from tests import hermetic
from tests.conftest import ROOT, TEST_HOME

INNER_CONFTEST = "from tests.conftest import *  # noqa: F401,F403\n"

WELL_BEHAVED = '''
import os, subprocess, sys
from pathlib import Path
from srcframework.pretrained import installed_path

def test_writes_only_where_the_session_points():
    Path(installed_path("x")).parent.mkdir(parents=True, exist_ok=True)
    Path(installed_path("x")).write_bytes(b"x")
    (Path.home() / ".allennlp" / "cache").mkdir(parents=True, exist_ok=True)
    (Path.home() / ".allennlp" / "cache" / "entry").write_text("x")
    subprocess.run([sys.executable, "-c", "import os, pathlib; p = pathlib.Path(os.path.expanduser('~/.cache/srcframework'));"
                    " p.mkdir(parents=True, exist_ok=True); (p / 'from_a_process').write_text('x')"], check=True)
'''

PLANTED = '''
import os
from pathlib import Path

def test_writes_into_the_users_cache():
    target = Path(os.environ["SRCFRAMEWORK_TESTS_REAL_CACHE"]) / "srcframework" / "models" / "planted.tar.gz"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"planted")

def test_changes_a_tracked_file():
    Path(os.environ["SRCFRAMEWORK_TESTS_REPOSITORY"], "tracked.txt").write_text("changed")
'''


def run_session(tmp_path: Path, test_text: str, *options: str) -> subprocess.CompletedProcess:
    """A pytest session of one test file whose conftest is this suite's, with `tmp_path/user` as the
    user's home and `tmp_path/clone` (one tracked file) as the repository it guards."""
    user, clone, inner = tmp_path / "user", tmp_path / "clone", tmp_path / "inner"
    for folder in (user / ".allennlp", user / ".cache" / "srcframework", clone, inner):
        folder.mkdir(parents=True, exist_ok=True)
    (user / ".allennlp" / "plugins").write_text("srcframework.allennlp_plugin\n")
    (clone / "tracked.txt").write_text("as committed")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(clone)]
    subprocess.run(git[:1] + ["init", "-q", str(clone)], check=True)
    subprocess.run(git + ["add", "tracked.txt"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "one file"], check=True)
    (inner / "conftest.py").write_text(INNER_CONFTEST)
    (inner / "session_test.py").write_text(test_text)
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("PYTEST_", "SRCFRAMEWORK_TESTS_", "XDG_", "ALLENNLP_CACHE", "SRCFRAMEWORK_MODELS"))}
    env.update(HOME=str(user), PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", SRCFRAMEWORK_TESTS_REPOSITORY=str(clone))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *options, str(inner / "session_test.py")],
                          cwd=inner, env=env, capture_output=True, text=True, timeout=600)


def user_files(tmp_path: Path) -> list:
    return sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "user").rglob("*") if p.is_file())


def test_every_test_sees_a_temporary_home_and_a_models_folder_of_its_own():
    home = Path(os.environ["HOME"])
    assert home == TEST_HOME and home != Path(os.environ[hermetic.REAL_HOME_ENV])
    assert os.path.expanduser("~") == str(home)
    assert Path(os.environ["XDG_CACHE_HOME"]).is_relative_to(home)
    from allennlp.common import file_utils, plugins

    assert Path(file_utils.CACHE_DIRECTORY).is_relative_to(home)
    assert Path(plugins.GLOBAL_PLUGINS_FILENAME) == home / ".allennlp" / "plugins"
    assert Path(plugins.GLOBAL_PLUGINS_FILENAME).read_text() == "srcframework.allennlp_plugin\n"
    models = Path(installed_path("x")).parent
    assert not models.is_relative_to(Path(os.environ[hermetic.REAL_HOME_ENV]))
    assert list(models.iterdir()) == []


def test_a_model_name_that_is_no_folder_is_not_looked_up_on_the_hub(tmp_path):
    import huggingface_hub.constants
    from allennlp.common.checks import ConfigurationError

    from srcframework.modules.field_encoders.checkpoints import pretrained_config

    assert os.environ["HF_HUB_OFFLINE"] == "1" and huggingface_hub.constants.HF_HUB_OFFLINE
    with pytest.raises(ConfigurationError, match="neither a folder holding a config.json nor a hub model available offline"):
        pretrained_config("no_such_encoder", "speecht5")


@pytest.mark.slow
def test_a_process_a_test_starts_finds_the_plugin_in_any_folder(tmp_path):
    from tests.conftest import allennlp_process

    done = allennlp_process("squad-eval", "--help", cwd=tmp_path)  # no .allennlp_plugins here
    assert done.returncode == 0 and "usage: allennlp squad-eval" in done.stdout, done.stderr[-2000:]


def test_the_listing_names_what_appeared_changed_or_went():
    before = {"a": "1 bytes", "b": "2 bytes", "repository file x": "M abc"}
    after = {"a": "1 bytes", "b": "3 bytes", "c": "4 bytes"}
    assert hermetic.changes(before, after) == ["b: changed (2 bytes -> 3 bytes)", "c: appeared (4 bytes)",
                                               "repository file x: back as committed"]
    assert hermetic.report([]) is None


@pytest.mark.slow
def test_a_session_that_writes_only_where_it_is_pointed_passes(tmp_path):
    done = run_session(tmp_path, WELL_BEHAVED)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "hermetic check" not in done.stdout
    assert user_files(tmp_path) == ["user/.allennlp/plugins"]


@pytest.mark.slow
def test_a_planted_write_fails_the_session_under_xdist(tmp_path):
    done = run_session(tmp_path, PLANTED, "-n", "2", "--dist", "worksteal")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert "2 passed" in done.stdout  # the tests passed: the check at the end failed the session
    planted = tmp_path / "user" / ".cache" / "srcframework" / "models" / "planted.tar.gz"
    assert f"{planted}: appeared" in done.stdout
    assert "repository file tracked.txt: appeared ( M " in done.stdout
