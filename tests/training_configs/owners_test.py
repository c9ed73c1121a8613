"""Every config of training_configs/ has an owner: a recipe trains it (its recipe.jsonnet names it,
or a config of the recipe imports it), a model card names it as its `training_config`, or the
tour (docs/tour.md) runs it. A config only a test uses lives in tests/fixtures/."""
import json
import re
from pathlib import Path
from typing import Dict, List

from tests.conftest import ROOT

CONFIGS = sorted((ROOT / "training_configs").glob("*.jsonnet"))


def owners(root: Path) -> Dict[str, List[str]]:
    """`{config (relative to root): what owns it}` for every `training_configs/*.jsonnet` under `root`."""
    found = {str(path.relative_to(root)): [] for path in sorted((root / "training_configs").glob("*.jsonnet"))}
    for recipe_file in sorted((root / "recipes").rglob("*sonnet")):
        text = recipe_file.read_text(encoding="utf-8")
        for config in found:
            name = re.escape(config.split("/", 1)[1])
            if re.search(rf"['\"](?:\.\./\.\./)?training_configs/{name}['\"]", text):
                found[config].append(f"recipe {recipe_file.relative_to(root)}")
    for card_file in sorted((root / "srcframework" / "modelcards").glob("*.json")):
        config = json.loads(card_file.read_text(encoding="utf-8")).get("model_usage", {}).get("training_config")
        if config in found:
            found[config].append(f"card {card_file.stem}")
    tour = root / "docs" / "tour.md"
    text = tour.read_text(encoding="utf-8") if tour.is_file() else ""
    for config in found:
        if re.search(rf"allennlp train {re.escape(config)}\b", text):
            found[config].append("the tour")
    return found


def test_every_training_config_has_an_owner():
    assert CONFIGS
    assert [config for config, owned_by in owners(ROOT).items() if not owned_by] == []


def test_a_config_without_an_owner_is_named(tmp_path):
    for folder in ("training_configs", "recipes/r", "srcframework/modelcards", "docs"):
        (tmp_path / folder).mkdir(parents=True)
    for name in ("carded", "imported", "toured", "alone"):
        (tmp_path / "training_configs" / f"{name}.jsonnet").write_text("{}")
    (tmp_path / "recipes" / "r" / "twin.jsonnet").write_text("local base = import '../../training_configs/imported.jsonnet';")
    (tmp_path / "srcframework" / "modelcards" / "c.json").write_text(
        json.dumps({"model_usage": {"training_config": "training_configs/carded.jsonnet"}}))
    (tmp_path / "docs" / "tour.md").write_text("allennlp train training_configs/toured.jsonnet -s runs/x\n"
                                               "training_configs/alone.jsonnet is named, not run\n")
    assert owners(tmp_path) == {"training_configs/alone.jsonnet": [], "training_configs/carded.jsonnet": ["card c"],
                                "training_configs/imported.jsonnet": ["recipe recipes/r/twin.jsonnet"],
                                "training_configs/toured.jsonnet": ["the tour"]}
