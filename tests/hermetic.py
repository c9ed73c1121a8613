"""
The test suite never touches the user's files.

`isolate()` runs when `tests/conftest.py` is imported, before AllenNLP is (AllenNLP fixes its cache
folder and its global plugins file, `~/.allennlp/plugins`, from `HOME` when it is imported): it
points `HOME`, `XDG_CACHE_HOME`, `XDG_CONFIG_HOME`, `ALLENNLP_CACHE_ROOT` and
`SRCFRAMEWORK_MODELS` into a temporary home made for the session (and sets `HF_HUB_OFFLINE`, so
a model name that is no folder is not looked up on the hub), and writes that home's AllenNLP
plugins file as `make install` writes the user's (`srcframework.allennlp_plugin`), so an
`allennlp` process started by a test finds the plugin in any folder. The processes tests start
inherit the environment. Under pytest-xdist the controller makes the home and its workers, which
inherit its environment, use the same one.

`guarded_listing()` lists what the suite must leave as it was: the user's real
`~/.cache/srcframework` (or `$XDG_CACHE_HOME/srcframework`) and `~/.allennlp` (each file's size
and modification time), and the repository's files that git tracks or would track (git's status
of each, with the sha256 of those it finds changed). The listing is taken when the session starts
and again when it ends (in the controller under pytest-xdist); `changes()` names what differs,
and the session then fails (`pytest_sessionfinish` in conftest), whatever the tests said.
"""
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
# the session's temporary home, and the user's real one, handed to the workers and processes tests start
HOME_ENV = "SRCFRAMEWORK_TESTS_HOME"
REAL_HOME_ENV = "SRCFRAMEWORK_TESTS_REAL_HOME"
REAL_CACHE_ENV = "SRCFRAMEWORK_TESTS_REAL_CACHE"
# the clone whose files are guarded, when it is not this one (the test of the check itself)
REPOSITORY_ENV = "SRCFRAMEWORK_TESTS_REPOSITORY"
PLUGIN_MODULE = "srcframework.allennlp_plugin"

_made_here: List[str] = []  # the temporary home, when this process made it


def isolate() -> Path:
    """Points the environment into the session's temporary home (made here, or the one an xdist
    controller made) and returns that home."""
    inherited = os.environ.get(HOME_ENV)
    if inherited and os.environ.get("PYTEST_XDIST_WORKER") and os.path.isdir(inherited):
        return Path(inherited)
    os.environ.setdefault(REAL_HOME_ENV, os.path.expanduser("~"))
    os.environ.setdefault(REAL_CACHE_ENV, os.environ.get("XDG_CACHE_HOME")
                          or os.path.join(os.environ[REAL_HOME_ENV], ".cache"))
    home = Path(tempfile.mkdtemp(prefix="srcframework-tests-home-"))
    _made_here.append(str(home))
    (home / ".allennlp").mkdir()
    (home / ".allennlp" / "plugins").write_text(f"{PLUGIN_MODULE}\n", encoding="utf-8")
    os.environ.update({
        HOME_ENV: str(home),
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "ALLENNLP_CACHE_ROOT": str(home / ".allennlp"),
        "SRCFRAMEWORK_MODELS": str(home / ".cache" / "srcframework" / "models"),
        # a released archive fetched by name goes to the loopback, where nothing listens on port 9
        # (the discard port): refused at once, never the release host; tests that fetch start a server
        "SRCFRAMEWORK_MODELS_URL": "http://127.0.0.1:9/",
        # a model name that is no folder is not looked up on the hub: with no network, each lookup
        # waited some 20 s of retries before its error
        "HF_HUB_OFFLINE": "1",
    })
    return home


def remove_home() -> None:
    """Removes the temporary home, when this process made it."""
    for folder in _made_here:
        shutil.rmtree(folder, ignore_errors=True)
    _made_here.clear()


def guarded_places() -> List[Path]:
    """The user's folders the suite must not change: srcframework's cache and AllenNLP's folder."""
    return [Path(os.environ[REAL_CACHE_ENV]) / "srcframework", Path(os.environ[REAL_HOME_ENV]) / ".allennlp"]


def _sha256(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as err:
        return f"unreadable ({err.strerror})"


def _repository_status(root: Path) -> Dict[str, str]:
    """`{path: git status and sha256}` of the repository's changed, added or untracked files (not
    ignored ones); empty where `root` is not a git clone. Takes no lock (other git commands may run)."""
    done = subprocess.run(["git", "--no-optional-locks", "status", "--porcelain", "-z", "--untracked-files=all"],
                          cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        return {}
    listing = {}
    for entry in done.stdout.split("\0"):
        if len(entry) > 3:
            name = entry[3:]
            listing[f"repository file {name}"] = f"{entry[:2]} {_sha256(root / name)}"
    return listing


def guarded_listing() -> Dict[str, str]:
    """`{what: state}` of everything `guarded_places` holds and of the repository's changed files."""
    root = Path(os.environ.get(REPOSITORY_ENV) or ROOT)
    listing = {}
    for place in guarded_places():
        files = sorted(path for path in place.rglob("*") if not path.is_dir()) if place.is_dir() else []
        for path in files:
            try:
                stat = path.lstat()
            except FileNotFoundError:
                continue
            listing[str(path)] = f"{stat.st_size} bytes, modified {stat.st_mtime_ns}"
    listing.update(_repository_status(root))
    return listing


def changes(before: Dict[str, str], after: Dict[str, str]) -> List[str]:
    """One line for each thing added, removed or changed between two listings."""
    lines = []
    for name in sorted(set(before) | set(after)):
        if name not in before:
            lines.append(f"{name}: appeared ({after[name]})")
        elif name not in after:
            lines.append(f"{name}: {'removed' if not name.startswith('repository file') else 'back as committed'}")
        elif before[name] != after[name]:
            lines.append(f"{name}: changed ({before[name]} -> {after[name]})")
    return lines


def report(lines: List[str]) -> Optional[str]:
    """The message that fails the session, or None when nothing changed."""
    if not lines:
        return None
    return ("the test session changed the user's files or the repository (tests must write only into their "
            "temporary folders):\n  " + "\n  ".join(lines))
