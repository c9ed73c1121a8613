"""Shared helpers and fixtures of the test suite.

- `run_allennlp`: the `allennlp` command line run in this process, for tests about what a command
  does; `allennlp_process`: the same in a process of its own, for what only a process shows (the
  exit status of an uncaught error, an empty stderr, the `.allennlp_plugins` file, plugins found at
  start-up, a signal).
- Session fixtures for what is expensive to make: `tiny_archive` (one tiny trained BiDAF),
  `spoken_tiny` (four questions of the tiny fixture read by flite), `accent_study_dir` (a study of
  the tiny BiDAF with its tables, figures and report), `squad_dev_lm`. Under pytest-xdist each is made once for all the
  workers (a lock in the session's shared temporary folder) and must be read, never changed.
- The suite is hermetic (`tests/hermetic.py`): before AllenNLP is imported, `HOME`, the caches and
  `SRCFRAMEWORK_MODELS` point into a temporary home (the `hermetic_home` session fixture keeps them
  there, and every test gets a models folder of its own); the processes tests start inherit it. The
  session fails when it ends if the user's srcframework cache, `~/.allennlp` or the repository's
  files changed.
"""
import contextlib
import io
import logging
import os
import shutil
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Optional

import pytest

from tests import hermetic

TEST_HOME = hermetic.isolate()  # before AllenNLP is imported: it reads HOME then
GUARDED_BEFORE = None if os.environ.get("PYTEST_XDIST_WORKER") else hermetic.guarded_listing()

import srcframework.allennlp_plugin  # noqa: E402,F401  (registers the components, as the allennlp command line does)

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SHARED_DATA = ROOT.parent / "shared" / "data"

os.chdir(ROOT)  # configs name data relative to the repository root


def pytest_configure(config):
    # Several pytest-xdist workers share the cores: torch's threads in each of them (and in the
    # processes the tests start, which inherit the variable) would wait on one another
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        import torch

        torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))


HERMETIC_FAILURE = pytest.StashKey[str]()


def pytest_sessionfinish(session, exitstatus):
    """Fails the session when the user's files or the repository changed while it ran (checked
    where the session started: the controller under pytest-xdist)."""
    if GUARDED_BEFORE is None:
        return
    message = hermetic.report(hermetic.changes(GUARDED_BEFORE, hermetic.guarded_listing()))
    if message:
        session.config.stash[HERMETIC_FAILURE] = message
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    message = config.stash.get(HERMETIC_FAILURE, None)
    if message:
        terminalreporter.section("hermetic check", sep="=", red=True, bold=True)
        terminalreporter.write_line(message, red=True)


def pytest_unconfigure(config):
    hermetic.remove_home()


@pytest.fixture(scope="session", autouse=True)
def hermetic_home():
    """The session's temporary home: `HOME`, `XDG_CACHE_HOME`, `XDG_CONFIG_HOME`,
    `ALLENNLP_CACHE_ROOT` (and so AllenNLP's plugins file) point into it for the whole session
    (`hermetic.isolate` set them when this file was imported; they are set again here should
    anything have moved them since)."""
    places = {"HOME": TEST_HOME, "XDG_CACHE_HOME": TEST_HOME / ".cache", "XDG_CONFIG_HOME": TEST_HOME / ".config",
              "ALLENNLP_CACHE_ROOT": TEST_HOME / ".allennlp"}
    with pytest.MonkeyPatch.context() as patch:
        for name, place in places.items():
            patch.setenv(name, str(place))
        yield TEST_HOME


@pytest.fixture(autouse=True)
def own_models_folder(hermetic_home, tmp_path_factory, monkeypatch):
    """`SRCFRAMEWORK_MODELS`: an empty folder of each test's own, so nothing one test installs is
    loaded by another (nor by the user)."""
    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(tmp_path_factory.mktemp("models")))


def shared_file(relative: str) -> Path:
    """A file of ../shared/data, or a skip with the reason where that folder is absent."""
    path = SHARED_DATA / relative
    if not path.exists():
        pytest.skip(f"{path} not found: the shared data folder is not beside this checkout")
    return path


def apertium_pairs() -> list:
    """The language pairs `apertium -l` lists; empty where apertium is not installed."""
    if shutil.which("apertium") is None:
        return []
    return subprocess.run(["apertium", "-l"], capture_output=True, text=True).stdout.split()


needs_apertium_eng_spa = pytest.mark.skipif(
    not {"eng-spa", "spa-eng"} <= set(apertium_pairs()),
    reason="apertium with eng-spa and spa-eng is not installed (apt-get install -y apertium apertium-eng-spa)",
)


# --- the allennlp command line ---------------------------------------------------------------------


@dataclass
class Ran:
    """What a command left: its exit status and what it printed."""

    returncode: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def training_state_kept():
    """Puts back what an AllenNLP command changes in the process for good: the root logger's
    handlers and level (`prepare_global_logging` replaces them with its own, a log file in the run
    folder among them), the tqdm logger's handlers, each logger's level and whether it is disabled
    (`evaluate` disables `allennlp.common.params`), `sys.excepthook` and torch's thread count."""
    import torch
    from allennlp.common.tqdm import logger as tqdm_logger

    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    tqdm_handlers = list(tqdm_logger.handlers)
    loggers = {name: (logger.level, logger.disabled) for name, logger in logging.root.manager.loggerDict.items()
               if isinstance(logger, logging.Logger)}
    hook, threads = sys.excepthook, torch.get_num_threads()
    try:
        yield
    finally:
        for name, logger in list(logging.root.manager.loggerDict.items()):
            if isinstance(logger, logging.Logger):
                logger.level, logger.disabled = loggers.get(name, (logging.NOTSET, False))
        logging.root.manager._clear_cache()
        for handler in set(root.handlers + tqdm_logger.handlers) - set(handlers + tqdm_handlers):
            handler.close()
        root.handlers[:] = handlers
        root.setLevel(level)
        tqdm_logger.handlers[:] = tqdm_handlers
        sys.excepthook = hook
        torch.set_num_threads(threads)


def _log_level() -> int:
    """The level `python -m allennlp` logs at (allennlp/__main__.py)."""
    if os.environ.get("ALLENNLP_DEBUG"):
        return logging.DEBUG
    return logging._nameToLevel.get(os.environ.get("ALLENNLP_LOG_LEVEL", "INFO"), logging.INFO)


def run_allennlp(*arguments, cwd=ROOT, env: Optional[Dict[str, Optional[str]]] = None) -> Ran:
    """
    `allennlp ARGUMENTS` run in this process as the command line runs it: AllenNLP's `main` with
    that argv, in `cwd`, with `env` added to the environment (a value None removes the variable;
    `SRCFRAMEWORK_DEBUG` is removed unless given), the log on stderr at AllenNLP's level, and an
    error that ends the command shown by srcframework's one-line handler (`cli_errors`), exit
    status 1, as the process would. A leading `--debug` is taken off and turns on debug mode, as
    in the process. Everything is put back afterwards: argv, folder, environment, logging, the
    exception hook and torch's threads.
    """
    from allennlp.commands import main

    from srcframework.commands import cli_errors

    argv = ["allennlp", *map(str, arguments)]
    changes: Dict[str, Optional[str]] = {cli_errors.DEBUG_ENV: None, **(env or {})}
    if argv[1:2] == [cli_errors.DEBUG_FLAG]:
        del argv[1]
        changes[cli_errors.DEBUG_ENV] = "1"
    saved_environ, saved_argv, saved_cwd = dict(os.environ), sys.argv, os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    handler = logging.StreamHandler(err)
    handler.setFormatter(logging.Formatter("%(asctime)s - %(levelname)s - %(name)s - %(message)s"))
    filters = [(logging.getLogger("allennlp.common.plugins"), cli_errors.PluginAnnouncementFilter())]
    returncode = 0
    with training_state_kept():
        try:
            for name, value in changes.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = str(value)
            if not cli_errors.debug_mode():
                filters.append((logging.getLogger("allennlp.common.params"), cli_errors.ExcerptFilter()))
            for logger, log_filter in filters:
                logger.addFilter(log_filter)
            root = logging.getLogger()
            root.addHandler(handler)
            root.setLevel(_log_level())
            sys.argv = argv
            os.chdir(cwd)
            hook_before = sys.excepthook
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    main(prog="allennlp")
                except SystemExit as stop:
                    if isinstance(stop.code, str):
                        print(stop.code, file=sys.stderr)
                    returncode = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
                except Exception as error:  # what the process's sys.excepthook would get
                    returncode = 1
                    fallback = sys.excepthook if sys.excepthook is not hook_before else (
                        lambda kind, value, tb: traceback.print_exception(kind, value, tb))
                    cli_errors.excepthook(type(error), error, error.__traceback__, fallback=fallback)
        finally:
            for logger, log_filter in filters:
                logger.removeFilter(log_filter)
            logging.getLogger().removeHandler(handler)
            sys.argv = saved_argv
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_environ)
    return Ran(returncode, out.getvalue(), err.getvalue())


def allennlp_process(*arguments, cwd=ROOT, env: Optional[Dict[str, Optional[str]]] = None,
                     timeout: int = 600, **kwargs) -> subprocess.CompletedProcess:
    """`python -m allennlp ARGUMENTS` in a process of its own, with the environment of
    `run_allennlp` (one torch thread, `SRCFRAMEWORK_DEBUG` removed unless given)."""
    environment = dict(os.environ, OMP_NUM_THREADS="1")
    environment.pop("SRCFRAMEWORK_DEBUG", None)
    for name, value in (env or {}).items():
        if value is None:
            environment.pop(name, None)
        else:
            environment[name] = str(value)
    return subprocess.run([sys.executable, "-m", "allennlp", *map(str, arguments)], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=timeout, **kwargs)


# --- expensive things, made once a session ---------------------------------------------------------


def made_once(tmp_path_factory, name: str, make: Callable[[Path], None]) -> Path:
    """A folder `name` that `make(folder)` fills, made once for the whole session: under
    pytest-xdist the first worker to ask makes it while the others wait on a lock, then all read
    it. `make` writes into an empty folder; a folder left half-made by a failure is made again."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        folder = tmp_path_factory.mktemp(name, numbered=True)
        make(folder)
        return folder
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp().parent  # the same for every worker of this session
    folder, done = shared / name, shared / f"{name}.done"
    with FileLock(str(shared / f"{name}.lock")):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            done.touch()
    return folder


@pytest.fixture(scope="session")
def tiny_archive(tmp_path_factory):
    """model.tar.gz of the tiny BiDAF fixture config (bidaf_tiny.jsonnet), trained once a session;
    its run folder (`tiny_archive.parent`) has the epoch checkpoints too."""
    from allennlp.commands.train import train_model_from_file

    def train(folder: Path) -> None:
        with training_state_kept():
            train_model_from_file(str(FIXTURES / "bidaf_tiny.jsonnet"), str(folder), force=True)

    return made_once(tmp_path_factory, "tiny_bidaf", train) / "model.tar.gz"


@pytest.fixture
def install_tiny(tmp_path, monkeypatch, tiny_archive):
    """A function that installs the tiny BiDAF archive under model card ids, in an empty models
    folder of tmp_path (`$SRCFRAMEWORK_MODELS`), as the recipes install what they train; it
    returns `{id: installed path}`."""
    from srcframework.pretrained import install

    monkeypatch.setenv("SRCFRAMEWORK_MODELS", str(tmp_path / "models"))

    def install_as(*model_ids: str) -> dict:
        return {model_id: install(model_id, str(tiny_archive)) for model_id in model_ids}

    return install_as


@pytest.fixture(scope="session")
def spoken_tiny(tmp_path_factory) -> Path:
    """A squad_src folder: the first four questions of the tiny fixture read by flite kal16 (US)
    and awb (UK), made once a session. Tests copy it before changing anything in it."""
    if shutil.which("flite") is None:
        pytest.skip("flite is not installed (apt-get install -y flite)")
    from srcframework.jobs.synthesis import synthesize_questions

    def synthesize(folder: Path) -> None:
        synthesize_questions(str(FIXTURES / "squad_tiny.json"), str(folder / "src"), "flite:kal16,flite:awb", limit=4,
                             progress=False)

    return made_once(tmp_path_factory, "spoken_tiny", synthesize) / "src"


@pytest.fixture(scope="session")
def accent_study_dir(tiny_archive, tmp_path_factory) -> Path:
    """The output folder of the accent study (`tests.studies.runner_test.accent_study`: the tiny
    BiDAF twice, on clean, keyboard and speaker-tagged sets), run once a session: results.json,
    the tables, figures and report.html. Read it; never change it."""
    from tests.studies.runner_test import run_accent_study

    return made_once(tmp_path_factory, "accent_study", lambda folder: run_accent_study(folder, tiny_archive))


@pytest.fixture(scope="session")
def squad_dev_lm(tmp_path_factory):
    """A word trigram LM (ARPA) of the first 2,000 SQuAD v1.1 dev questions, estimated once per
    test session by IRSTLM."""
    from srcframework.data.squad_file import iter_questions
    from srcframework.speech.word_lm import build_word_lm

    squad = shared_file("squad/dev-v1.1.json")

    def estimate(folder: Path) -> None:
        questions = [q.question for _, q in zip(range(2000), iter_questions(squad))]
        build_word_lm(questions, str(folder / "questions.arpa"), order=3)

    return str(made_once(tmp_path_factory, "word_lm", estimate) / "questions.arpa")

