"""`scripts/install_package.py`, the documented one-command install (docs/install.md), used as a
user outside the clone uses it: the wheel built from this checkout goes into a fresh venv (not
made with --system-site-packages) by that command, and the installed package, from a folder with
no clone in or above it, fetches a released model by name from a loopback server (the clone's
models/, sha256 checked) and answers a question with it, in Python and through `allennlp`.

What it proves, exactly: the command installs the wheel and AllenNLP into a fresh venv where
every other requirement is already at the version `constraints.txt` names, with pip offline
(`PIP_NO_INDEX`: any package pip would still have to fetch fails the test; AllenNLP comes from a
wheel rebuilt here from the project venv's installed files, through the command's `-- --find-links`). The venv sees the
project venv's third-party packages through a `.pth` file naming a folder of links to them, with
srcframework, AllenNLP and pip left out (the venv's own setuptools, older than torch needs,
makes way for the project's); so the resolution of `install_requires`
against the constraints, the wheel's contents and AllenNLP's `--no-deps` step are tested, but not
the download of torch and the rest from the registry (measured by hand in docs/install.md)."""
import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.store.download_test import serving

pytestmark = pytest.mark.slow  # builds a wheel, makes a venv, installs, loads a model

LEFT_OUT = ("srcframework", "_srcframework", "__editable__", "allennlp", "pip")
DIST_INFO_MADE_AT_INSTALL = ("INSTALLER", "REQUESTED", "RECORD", "direct_url.json")
CONTEXT = "Jastemora is a town in the Algaren Valley that was founded in 1211 by Tannine Osklirard."


def wheel_of_this_checkout(folder: Path) -> Path:
    source = folder / "source"  # a copy, so that the build writes nothing into the checkout
    shutil.copytree(ROOT / "srcframework", source / "srcframework", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("setup.py", "README.md"):
        shutil.copy(ROOT / name, source / name)
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                            "-w", str(folder / "wheels"), str(source)], capture_output=True, text=True, cwd=folder)
    assert build.returncode == 0, build.stderr
    return next((folder / "wheels").glob("srcframework-*.whl"))


def wheel_of_installed(name: str, version: str, folder: Path) -> Path:
    """The wheel of a pure-Python distribution installed in the project venv, rebuilt from the files
    its RECORD lists: AllenNLP 2.10.1 for the command's `--no-deps` step, with pip offline."""
    site = Path(sysconfig.get_paths()["purelib"])
    info = f"{name}-{version}.dist-info"
    files = []
    for line in (site / info / "RECORD").read_text().splitlines():
        path = line.rsplit(",", 2)[0]
        if path.startswith("..") or "__pycache__" in path or path.split("/")[-1] in DIST_INFO_MADE_AT_INSTALL:
            continue
        files.append(path)
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    record = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in files:
            payload = (site / path).read_bytes()
            digest = base64.urlsafe_b64encode(hashlib.sha256(payload).digest()).rstrip(b"=").decode()
            record.append(f"{path},sha256={digest},{len(payload)}")
            archive.writestr(path, payload)
        archive.writestr(f"{info}/RECORD", "\n".join(record + [f"{info}/RECORD,,"]) + "\n")
    return wheel


def project_packages(folder: Path) -> Path:
    """A folder of links to the project venv's third-party packages, without those the command installs."""
    folder.mkdir()
    site = Path(sysconfig.get_paths()["purelib"])
    for entry in site.iterdir():
        if entry.name.endswith(".pth") or entry.name.lower().startswith(LEFT_OUT):
            continue
        (folder / entry.name).symlink_to(entry)
    return folder


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A fresh venv with srcframework installed by the documented command; `(python, env)`."""
    folder = tmp_path_factory.mktemp("user")
    wheel = wheel_of_this_checkout(folder)
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    # the venv's own setuptools (ensurepip's) is older than torch needs, and pip is offline here: the
    # project venv's stands in, as the registry's would for a user
    subprocess.run([str(python), "-m", "pip", "uninstall", "-q", "-y", "setuptools"], check=True, timeout=300)
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "project_packages.pth").write_text(f"{project_packages(folder / 'packages')}\n")
    home = folder / "home"
    home.mkdir()
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"),
           "OMP_NUM_THREADS": "1", "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
           "SRCFRAMEWORK_MODELS_URL": "http://127.0.0.1:9/"}
    wheelhouse = wheel_of_installed("allennlp", "2.10.1", folder / "wheelhouse").parent
    install = subprocess.run([str(python), str(ROOT / "scripts" / "install_package.py"), str(wheel),
                              "--", "--find-links", str(wheelhouse)],
                             capture_output=True, text=True, cwd=home, env=env, timeout=900)
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    assert "Successfully installed allennlp-2.10.1" in install.stdout
    assert f"srcframework installed: {purelib}/srcframework/__init__.py" in install.stdout
    assert (home / ".allennlp" / "plugins").read_text() == "srcframework.allennlp_plugin\n"
    return python, env, home


def test_the_installed_package_fetches_a_released_model_and_answers(venv):
    python, env, home = venv
    elsewhere = home / "work"
    elsewhere.mkdir()
    code = ("import json, srcframework; from srcframework.pretrained import load_predictor\n"
            "predictor = load_predictor('bidaf-quickstart')\n"
            f"answer = predictor.predict_json({{'passage': {CONTEXT!r}, 'question': 'Who founded Jastemora?'}})\n"
            "print(json.dumps([srcframework.__file__, answer['best_span_str']]))")
    with serving(ROOT / "models") as requests:
        url = os.environ["SRCFRAMEWORK_MODELS_URL"]
        done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, cwd=elsewhere,
                              env=dict(env, SRCFRAMEWORK_MODELS_URL=url), timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    where, answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert not where.startswith(str(ROOT)) and answer in CONTEXT and answer
    assert requests == ["/bidaf-quickstart.tar.gz"]
    assert (home / ".cache" / "srcframework" / "models" / "bidaf-quickstart.tar.gz").is_file()


def test_the_allennlp_command_of_the_venv_has_the_plugin_in_any_folder(venv, tmp_path):
    python, env, home = venv
    inputs = tmp_path / "questions.jsonl"
    inputs.write_text(json.dumps({"passage": CONTEXT, "question": "When was Jastemora founded?"}) + "\n")
    with serving(ROOT / "models"):
        url = os.environ["SRCFRAMEWORK_MODELS_URL"]
        fetched = subprocess.run([str(python), "-m", "allennlp", "models", "install", "bidaf-clean"],
                                 capture_output=True, text=True, cwd=tmp_path, env=dict(env, SRCFRAMEWORK_MODELS_URL=url),
                                 timeout=600)
    assert fetched.returncode == 0, fetched.stderr[-3000:]
    archive = fetched.stdout.strip().splitlines()[-1]
    assert archive == str(home / ".cache" / "srcframework" / "models" / "bidaf-clean.tar.gz")
    done = subprocess.run([str(python), "-m", "allennlp", "predict", archive, str(inputs), "--predictor", "span_qa",
                           "--output-file", str(tmp_path / "answers.jsonl"), "--silent"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads((tmp_path / "answers.jsonl").read_text())["best_span_str"] in CONTEXT
