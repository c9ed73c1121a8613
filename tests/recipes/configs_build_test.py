"""Every config of training_configs/ and recipes/ builds: rendered with the default variables (and
its recipe's `env`), given
the tiny overrides of tests/recipes/tiny_config.py, and its whole train loop instantiated as
`allennlp train` instantiates it (`TrainModel.from_params`: readers, data, vocabulary, model, data
loaders, trainer and callbacks), without a training step. A config that cannot be built this way
is named in NOT_BUILT with the reason (and then must fail to build); any other failure fails. Every
study file loads, every libsonnet is imported by something, and every config of a recipe is named
by its recipe.jsonnet, its README or another of its files."""
import json
import re
from pathlib import Path

import _jsonnet
import pytest
from allennlp.commands.train import TrainModel
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.models.archival import verify_include_in_archive

from srcframework.studies.study import load_study
from tests.conftest import FIXTURES, ROOT
from tests.recipes.recipe_variables import recipe_variables
from tests.recipes.tiny_config import TinyInputs, tiny_config

RECIPES = sorted(p for p in (ROOT / "recipes").iterdir() if p.is_dir())
STUDIES = sorted((ROOT / "recipes").rglob("study*.jsonnet"))
CONFIGS = sorted(
    list((ROOT / "training_configs").glob("*.jsonnet"))
    + [p for p in (ROOT / "recipes").glob("*/*.jsonnet") if p not in STUDIES and p.name != "recipe.jsonnet"]
)
LIBRARIES = sorted(list((ROOT / "training_configs").rglob("*.libsonnet")) + list((ROOT / "recipes").rglob("*.libsonnet")))
RECIPE_FILES = sorted((ROOT / "recipes").glob("*/recipe.jsonnet"))
# config (relative to the repository root) -> why it cannot be built with tiny overrides; such a
# config must fail to build (strict xfail), so an entry goes once the config builds
NOT_BUILT: dict = {}


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


def render(path: Path) -> dict:
    return json.loads(_jsonnet.evaluate_file(str(path), ext_vars=recipe_variables(path)))


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """The tiny files, made once for this module: six questions of squad_tiny.json read by three
    flite voices, a MiniLM-wide random BERT, a tiny SpeechT5, a misspelling list."""
    from transformers import BertConfig, BertModel

    from srcframework.jobs.synthesis import synthesize_questions
    from tests.data.dataset_readers.transformer_squad_test import build_tiny_bert
    from tests.tiny_models import tiny_checkpoint

    folder = tmp_path_factory.mktemp("tiny_inputs")
    spoken = folder / "spoken"
    synthesize_questions(str(FIXTURES / "squad_tiny.json"), str(spoken), "flite:kal16,flite:awb,flite:slt", limit=6, progress=False)
    bert = build_tiny_bert(folder / "bert")
    vocab_size = len((folder / "bert" / "vocab.txt").read_text().splitlines())
    BertModel(BertConfig(vocab_size=vocab_size, hidden_size=384, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=32, max_position_embeddings=512)).save_pretrained(bert)
    misspellings = folder / "misspellings.txt"
    misspellings.write_text("harbuor->harbour\ncapitol->capital\n")
    speecht5 = tiny_checkpoint(tmp_path_factory, "speecht5")
    return TinyInputs(spoken, bert, speecht5, str(misspellings), folder)


def config_param(path: Path):
    reason = NOT_BUILT.get(relative(path))
    marks = [pytest.mark.xfail(strict=True, raises=ConfigurationError, reason=reason)] if reason else []
    return pytest.param(path, id=relative(path), marks=marks)


@pytest.mark.parametrize("path", [config_param(path) for path in CONFIGS])
def test_config_builds_with_tiny_overrides(path, inputs, tmp_path):
    config = tiny_config(render(path), inputs)
    verify_include_in_archive(config.pop("include_in_archive", None))
    loop = TrainModel.from_params(params=Params(config), serialization_dir=str(tmp_path), local_rank=0)
    assert loop.model.vocab.get_vocab_size("tokens") > 0 or config.get("vocabulary", {}).get("type") == "empty"
    assert sum(p.numel() for p in loop.model.parameters() if p.requires_grad) > 0


def test_the_list_of_configs_not_built_names_existing_configs():
    assert set(NOT_BUILT) <= {relative(path) for path in CONFIGS}


@pytest.mark.parametrize("path", STUDIES, ids=relative)
def test_study_file_loads(path):
    study = load_study(str(path), ext_vars=recipe_variables(path), require_files=False)
    assert study.models and study.test_sets and study.pairs


IMPORT = re.compile(r"""import\s+'([^']+)'""")


def imports(path: Path) -> set:
    return {(path.parent / name).resolve() for name in IMPORT.findall(path.read_text())}


def test_every_libsonnet_is_imported():
    imported = set().union(*(imports(path) for path in CONFIGS + STUDIES + LIBRARIES + RECIPE_FILES))
    unused = [relative(path) for path in LIBRARIES if path.resolve() not in imported]
    assert not unused, f"imported by no config or study: {unused}"


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda p: p.name)
def test_every_config_of_a_recipe_is_used(recipe):
    own = [path for path in sorted(recipe.glob("*.*sonnet")) if path.name != "study.jsonnet"]
    unused = []
    for path in own:
        others = [recipe / "README.md"] + [other for other in recipe.glob("*.*sonnet") if other != path]
        text = "\n".join(other.read_text() for other in others if other.exists())
        if not re.search(rf"\b{re.escape(path.stem)}\b", text):
            unused.append(path.name)
    assert not unused, f"{recipe.name}: named by neither recipe.jsonnet, README.md nor another of its files: {unused}"


# where a shared config is named as what it is for (its owner): the guides, the make targets, model
# cards, recipes, benchmarks and the other tests; a config that only another config imports has none
NAMED_IN = ["README.md", "Makefile", "docs/**/*.md", "srcframework/modelcards/*.json", "recipes/**/*", "benchmarks/*.py", "tests/**/*.py"]


@pytest.mark.parametrize("path", sorted((ROOT / "training_configs").glob("*.jsonnet")), ids=relative)
def test_every_shared_config_is_named_somewhere_else(path):
    files = {found for pattern in NAMED_IN for found in ROOT.glob(pattern)
             if found.is_file() and found not in (path, Path(__file__).resolve())}
    assert any(path.name in found.read_text(errors="ignore") for found in files), f"{relative(path)} is named nowhere"
