"""The layer map of `srcframework/` (docs/architecture.md): a module may import from its own layer
or a lower one, never from a higher one. This test reads every module's imports (its whole syntax
tree, so imports inside functions count too) and names each upward one."""
import ast
import sys
from pathlib import Path
from typing import Iterator, List, Tuple

PACKAGE = Path(__file__).resolve().parents[1] / "srcframework"

# the layer of each top-level subpackage or module of srcframework
LAYERS = {
    "allennlp_plugin": 7,
    "commands": 7,
    "recipes": 6,
    "studies": 5,
    "jobs": 4,
    "reports": 4,
    "plugins": 3,
    "models": 3,
    "training": 3,
    "predictors": 3,
    "pretrained": 3,  # model cards → archives and predictors
    "release": 3,  # released archives in models/
    "modules": 2,
    "noise": 2,
    "data": 1,
    "speech": 1,
    "metrics": 1,
    "common": 0,
    "compat": 0,
    "config_defaults": 0,
}

# modules placed apart from their package's layer (none at present: the `NoiseSource` base class
# that a reader receives lives in data/, and noise/noise_source.py re-exports it for plugins)
MODULE_LAYERS: dict = {}

# `srcframework/__init__.py` imports every subpackage so that registration happens on import
EXEMPT = {"__init__"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def layer_of(name: str) -> int:
    for prefix, layer in MODULE_LAYERS.items():
        if name == prefix or name.startswith(prefix + "."):
            return layer
    return LAYERS[name.split(".")[0]]


def imported_modules(path: Path) -> Iterator[Tuple[int, str]]:
    """`(line, module below srcframework)` of every srcframework import, absolute or relative."""
    package = ["srcframework"] + module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            if module == "srcframework":  # from srcframework import commands, data, ...
                names = [f"srcframework.{alias.name}" for alias in node.names]
            else:
                names = [module]
        else:
            continue
        for name in names:
            if name.startswith("srcframework."):
                yield node.lineno, name[len("srcframework."):]


def upward_imports() -> List[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        if name in EXEMPT:
            continue
        mine = layer_of(name)
        for line, imported in imported_modules(path):
            theirs = layer_of(imported)
            if theirs > mine:
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line} (layer {mine}) imports {imported} (layer {theirs})")
    return found


def test_every_subpackage_has_a_layer():
    subpackages = {path.name for path in PACKAGE.iterdir() if path.is_dir() and (path / "__init__.py").exists()}
    modules = {path.stem for path in PACKAGE.glob("*.py")} - EXEMPT
    assert subpackages | modules <= set(LAYERS), sorted((subpackages | modules) - set(LAYERS))


def test_no_module_imports_from_a_higher_layer():
    assert upward_imports() == []


def test_an_upward_import_is_found(tmp_path, monkeypatch):
    fake = tmp_path / "srcframework"
    (fake / "data").mkdir(parents=True)
    (fake / "models").mkdir()
    (fake / "data" / "__init__.py").write_text("")
    (fake / "models" / "__init__.py").write_text("")
    (fake / "data" / "reader.py").write_text("def f():\n    from srcframework.models.span_qa import SpanQA\n")
    (fake / "models" / "span_qa.py").write_text("from ..data.reader import f\nfrom srcframework import common\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    assert upward_imports() == ["srcframework/data/reader.py:2 (layer 1) imports models.span_qa (layer 3)"]
