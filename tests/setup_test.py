"""The installed package (`pip install .`, not an editable checkout): the model cards ship inside it,
`allennlp models` lists them, and a released id whose archive is not beside the installation says in
one line how to get it."""
import json
import shutil
import subprocess
import sys
import zipfile

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # builds and installs a wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """srcframework built as a wheel from this checkout and installed into a folder of its own."""
    folder = tmp_path_factory.mktemp("installed")
    source = folder / "source"  # a copy, so that the build writes nothing into the checkout
    shutil.copytree(ROOT / "srcframework", source / "srcframework", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("setup.py", "README.md"):
        shutil.copy(ROOT / name, source / name)
    wheels = folder / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(source)],
        capture_output=True, text=True, cwd=folder)
    assert build.returncode == 0, build.stderr
    wheel = next(wheels.glob("srcframework-*.whl"))
    target = folder / "site"
    install = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                             capture_output=True, text=True, cwd=folder)
    assert install.returncode == 0, install.stderr
    return wheel, target


def run_installed(target, code, tmp_path):
    """Python code run against the installed copy, from a folder with no clone in or above it."""
    env = {"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
           "SRCFRAMEWORK_MODELS": str(tmp_path / "models"), "SRCFRAMEWORK_MODELS_URL": "http://127.0.0.1:9/"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env)


def test_the_cards_ship_with_the_package(installed, tmp_path):
    wheel, target = installed
    shipped = {name for name in zipfile.ZipFile(wheel).namelist() if name.startswith("srcframework/modelcards/")}
    assert {f"srcframework/modelcards/{path.name}" for path in (ROOT / "srcframework" / "modelcards").glob("*.json")} == shipped
    listed = run_installed(target, "import srcframework.pretrained as p; print(p.__file__); print(' '.join(p.model_cards()))", tmp_path)
    assert listed.returncode == 0, listed.stderr
    where, ids = listed.stdout.splitlines()
    assert where.startswith(str(target))  # the installed copy, not the clone
    assert "bidaf-quickstart" in ids.split() and "bidaf-clean" in ids.split()


def test_allennlp_models_lists_them_and_a_released_id_says_how_to_get_it(installed, tmp_path):
    _, target = installed
    code = ("import sys; from allennlp.commands import main; import srcframework.allennlp_plugin\n"
            "sys.argv = ['allennlp', 'models', 'list', '--json']; main(prog='allennlp')")
    listing = run_installed(target, code, tmp_path)
    assert listing.returncode == 0, listing.stderr
    rows = {row["id"]: row["archive"] for row in json.loads(listing.stdout)}
    assert rows["bidaf-quickstart"] == "to fetch"  # released in the repository, which is not here: fetched by name
    loading = run_installed(target, "from srcframework.pretrained import load_predictor; load_predictor('bidaf-quickstart')", tmp_path)
    assert loading.returncode == 1
    last = loading.stderr.strip().splitlines()[-1]
    assert "released in the srcframework repository as models/bidaf-quickstart.tar.gz, which is not beside this installation" in last
    assert "allennlp models install bidaf-quickstart --archive CLONE/models/bidaf-quickstart.tar.gz" in last
    assert "fetching it by name failed (cannot fetch http://127.0.0.1:9/bidaf-quickstart.tar.gz: " in last
