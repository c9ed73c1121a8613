"""An override whose key is not dotted replaces the whole block it names (AllenNLP 2.x); when that
drops keys of the block, one warning line names them and gives the dotted form. The recipes and the
docs give only the dotted form."""
import json
import logging
import re

import pytest
from allennlp.common import Params

from srcframework import compat
from tests.conftest import ROOT

QUICKSTART = str(ROOT / "training_configs" / "quickstart.jsonnet")


def warnings_of(caplog) -> list:
    return [r.getMessage() for r in caplog.records if r.name == "srcframework.compat" and r.levelno == logging.WARNING]


def test_a_nested_override_that_drops_keys_is_named_with_its_dotted_form(caplog):
    with caplog.at_level(logging.WARNING):
        params = Params.from_file(QUICKSTART, json.dumps({"trainer": {"num_epochs": 1}}))
    assert params.as_dict(quiet=True)["trainer"] == {"num_epochs": 1}  # AllenNLP's behaviour is kept
    lines = warnings_of(caplog)
    assert len(lines) == 1, lines
    line = lines[0]
    assert "\n" not in line and '"trainer"' in line
    for dropped in ("optimizer", "grad_norm", "validation_metric", "callbacks"):
        assert dropped in line
    assert line.endswith('{"trainer.num_epochs": 1}')


def test_the_dotted_form_keeps_the_block_and_says_nothing(caplog):
    with caplog.at_level(logging.WARNING):
        params = Params.from_file(QUICKSTART, json.dumps({"trainer.num_epochs": 1}))
    trainer = params.as_dict(quiet=True)["trainer"]
    assert trainer["num_epochs"] == 1 and "optimizer" in trainer and "callbacks" in trainer
    assert warnings_of(caplog) == []


def test_a_block_inside_the_override_that_loses_keys_is_named_too():
    original = {"trainer": {"num_epochs": 8, "optimizer": {"type": "adam", "lr": 0.01, "betas": [0.9, 0.9]}}}
    found = compat.dropping_overrides(original, {"trainer": {"num_epochs": 8, "optimizer": {"lr": 0.1}}})
    assert found == [("trainer", ["optimizer.type", "optimizer.betas"],
                      {"trainer.num_epochs": 8, "trainer.optimizer.lr": 0.1})]
    # a dotted key that still replaces a block
    found = compat.dropping_overrides(original, {"trainer.optimizer": {"lr": 0.1}})
    assert found == [("trainer.optimizer", ["type", "betas"], {"trainer.optimizer.lr": 0.1})]


@pytest.mark.parametrize("overrides", [
    {"trainer": {"num_epochs": 1, "optimizer": {"type": "sgd", "lr": 0.1}}},  # another type: a new component
    {"model": {"type": "other", "x": 1}},
    {"trainer.num_epochs": 1},
    {"distributed": {"cuda_devices": [0, 1]}},  # a block the config does not have
    {"trainer": {"num_epochs": 1, "optimizer": {"type": "adam", "lr": 0.01, "betas": [0.9, 0.9]}}},  # every key
])
def test_no_warning_where_nothing_is_dropped(overrides):
    original = {"model": {"type": "bidaf", "x": 2, "y": 3},
                "trainer": {"num_epochs": 8, "optimizer": {"type": "adam", "lr": 0.01, "betas": [0.9, 0.9]}}}
    assert compat.dropping_overrides(original, overrides) == []


# configs' top-level blocks; an override of one of them written nested drops the rest of it
_NESTED = re.compile(r'\{\s*\\?"(trainer|model|data_loader|validation_data_loader|dataset_reader|'
                     r'validation_dataset_reader|vocabulary)\\?"\s*:\s*\{')


@pytest.mark.parametrize("relative", [
    "recipes/quickstart/README.md", "recipes/quickstart/recipe.jsonnet", "srcframework/commands/recipe.py", "README.md",
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")),
])
def test_docs_and_recipes_give_overrides_dotted(relative):
    text = (ROOT / relative).read_text()
    assert not _NESTED.search(text), f"{relative}: {_NESTED.search(text).group(0)}"
