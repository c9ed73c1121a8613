import os
import shutil
import subprocess
from pathlib import Path

import pytest

import srcframework.allennlp_plugin  # noqa: F401  (registers the components, as the allennlp command line does)

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SHARED_DATA = ROOT.parent / "shared" / "data"

os.chdir(ROOT)  # configs name data relative to the repository root


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


@pytest.fixture(scope="session")
def tiny_archive(tmp_path_factory):
    """model.tar.gz of the tiny BiDAF fixture config, trained once per test session."""
    from allennlp.commands.train import train_model_from_file

    serialization_dir = tmp_path_factory.mktemp("tiny_bidaf")
    train_model_from_file(str(FIXTURES / "bidaf_tiny.jsonnet"), str(serialization_dir), force=True)
    return serialization_dir / "model.tar.gz"


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
def squad_dev_lm(tmp_path_factory):
    """A word trigram LM (ARPA) of the first 2,000 SQuAD v1.1 dev questions, estimated once per
    test session by IRSTLM."""
    from srcframework.data.squad_file import iter_questions
    from srcframework.speech.word_lm import build_word_lm

    squad = shared_file("squad/dev-v1.1.json")
    questions = [q.question for _, q in zip(range(2000), iter_questions(squad))]
    path = tmp_path_factory.mktemp("word_lm") / "questions.arpa"
    build_word_lm(questions, str(path), order=3)
    return str(path)
