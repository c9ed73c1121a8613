"""The layer map of `srcframework/` (docs/architecture.md): a module may import from its own layer
or a lower one, never from a higher one; the import graph has no circle; only `store/` writes
under `models/`; a study does not train; the significance level and the bootstrap count are
defined once (metrics/statistics.py). This test reads every module's imports (its whole syntax
tree, so imports inside functions count too) and names each upward one, each circle and each
writer, and each second definition of the level or the bootstrap count."""
import ast
import re
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Set, Tuple


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
    "store": 4,  # archives and snapshots under models/: release, snapshot, put-back, quota
    "modules": 2,
    "noise": 2,
    "data": 1,
    "speech": 1,
    "metrics": 1,
    "common": 0,
    "compat": 0,
    "config_defaults": 0,
}

# modules placed apart from their package's layer: the clone's folders and the size limits are facts
# every layer may read (`pretrained` finds archives, recipes find their folder), and the download of a
# released archive into the models folder (`pretrained` fetches one on a miss); writing under
# models/ stays in store/'s layer. (The `NoiseSource` base class that a reader receives lives in
# data/, and noise/noise_source.py re-exports it for plugins.)
MODULE_LAYERS: dict = {"store.paths": 0, "store.limits": 0, "store.download": 0}

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


def all_imports(path: Path) -> Iterator[Tuple[int, str]]:
    """`(line, absolute module name)` of every import in `path`, absolute or relative; `from X import
    Y` gives `X.Y` where that is a module of srcframework (a submodule imported by name), else `X`."""
    package = ["srcframework"] + module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names = []
            for alias in node.names:
                inner = f"{module}.{alias.name}"
                submodule = inner.startswith("srcframework.") and _module_path(inner[len("srcframework."):]) is not None
                names.append(inner if submodule or module == "srcframework" else module)
        else:
            continue
        for name in names:
            yield node.lineno, name


def _module_path(name: str):
    """The file of the srcframework module `name` (`recipes.state`), or None."""
    base = PACKAGE.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def imported_modules(path: Path) -> Iterator[Tuple[int, str]]:
    """`(line, module below srcframework)` of every srcframework import, absolute or relative."""
    for line, name in all_imports(path):
        if name.startswith("srcframework."):
            yield line, name[len("srcframework."):]


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


def import_graph() -> Dict[str, Set[str]]:
    """Each module of srcframework (but `__init__`) and the srcframework modules it imports (a name
    that is no module counts as the module that holds it)."""
    graph = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        if name in EXEMPT:
            continue
        edges = set()
        for _, imported in imported_modules(path):
            while imported and _module_path(imported) is None:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                edges.add(imported)
        graph[name] = edges
    return graph


def circles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without
    recursion), each sorted, in name order."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            pushed = False
            for edge in edges:
                if edge not in index:
                    index[edge] = low[edge] = len(index)
                    stack.append(edge)
                    on_stack.add(edge)
                    work.append((edge, iter(sorted(graph.get(edge, ())))))
                    pushed = True
                    break
                if edge in on_stack:
                    low[node] = min(low[node], index[edge])
            if pushed:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def test_the_import_graph_has_no_circle():
    assert circles(import_graph()) == []


def test_a_circle_is_found(tmp_path, monkeypatch):
    fake = tmp_path / "srcframework"
    (fake / "recipes").mkdir(parents=True)
    (fake / "recipes" / "__init__.py").write_text("")
    (fake / "recipes" / "state.py").write_text("from srcframework.recipes import recipe\n")
    (fake / "recipes" / "recipe.py").write_text("def f():\n    from .release import g\n")
    (fake / "recipes" / "release.py").write_text("from srcframework.recipes.state import h\n")
    (fake / "recipes" / "alone.py").write_text("from srcframework.recipes.recipe import f\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    assert import_graph()["recipes.state"] == {"recipes.recipe"}
    assert circles(import_graph()) == [["recipes.recipe", "recipes.release", "recipes.state"]]


# the functions of store.paths that name a folder under models/
MODELS_PATHS = {"models_dir", "snapshots_dir"}
# calls that write, remove or move files: the atomic writers by name, the rest by their module or method
ATOMIC_WRITERS = {"atomic_output", "write_bytes_atomic", "write_text_atomic", "write_json_atomic", "write_lines_atomic"}
MODULE_WRITERS = {"os": {"makedirs", "mkdir", "replace", "rename", "remove", "unlink", "rmdir"},
                  "shutil": {"copy", "copy2", "copyfile", "copyfileobj", "copytree", "move", "rmtree"},
                  "torch": {"save"}}
METHOD_WRITERS = {"write_text", "write_bytes", "touch", "unlink", "mkdir", "rmdir"}


def _writes(call: ast.Call) -> bool:
    function = call.func
    if isinstance(function, ast.Name):
        if function.id in ATOMIC_WRITERS:
            return True
        if function.id == "open":
            mode = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
            return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and any(c in mode.value for c in "wax+")
        return False
    if isinstance(function, ast.Attribute):
        if function.attr in ATOMIC_WRITERS or function.attr in METHOD_WRITERS:
            return True
        owner = function.value
        return isinstance(owner, ast.Name) and function.attr in MODULE_WRITERS.get(owner.id, ())
    return False


def _names_models(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id in MODELS_PATHS
    if isinstance(node, ast.Attribute):
        return node.attr in MODELS_PATHS
    if isinstance(node, ast.alias):
        return node.name in MODELS_PATHS
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("models/")


def models_writers() -> List[str]:
    """Each function (or module body) outside `store/` that names a folder under models/ (a path
    function of `store.paths`, or a `models/...` path) and writes, removes or moves a file."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if module_name(path).split(".")[0] == "store":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        scopes = [tree] + [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for scope in scopes:
            inner: List[ast.AST] = []
            todo = list(ast.iter_child_nodes(scope))
            while todo:  # the scope's own nodes, not those of the functions defined in it
                node = todo.pop()
                inner.append(node)
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    todo.extend(ast.iter_child_nodes(node))
            named = [node for node in inner if _names_models(node)]
            writes = [node for node in inner if isinstance(node, ast.Call) and _writes(node)]
            if named and writes:
                where = getattr(scope, "name", "<module>")
                found.append(f"{path.relative_to(PACKAGE.parent)}:{writes[0].lineno} ({where}) writes, and names "
                             f"models/ on line {named[0].lineno}")
    return found


def test_only_store_writes_under_models():
    assert models_writers() == []


def test_a_writer_under_models_outside_store_is_found(tmp_path, monkeypatch):
    fake = tmp_path / "srcframework"
    for package in ("store", "commands"):
        (fake / package).mkdir(parents=True)
        (fake / package / "__init__.py").write_text("")
    writer = ("import os\nfrom srcframework.store import paths\n\n\ndef keep(payload):\n"
              "    target = os.path.join(paths.models_dir(), 'x.tar.gz')\n"
              "    with open(target, 'wb') as handle:\n        handle.write(payload)\n")
    (fake / "store" / "release.py").write_text(writer)
    (fake / "commands" / "models.py").write_text(
        writer + "\n\ndef show():\n    print(paths.snapshots_dir())\n\n\ndef drop():\n    os.remove('models/x.tar.gz')\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    assert models_writers() == ["srcframework/commands/models.py:7 (keep) writes, and names models/ on line 6",
                                "srcframework/commands/models.py:16 (drop) writes, and names models/ on line 16"]


# what trains: a study only evaluates (training is a recipe step)
TRAINERS = ("srcframework.training", "allennlp.commands.train", "allennlp.training")


def trainer_imports(package: str = "studies") -> List[str]:
    found = []
    for path in sorted((PACKAGE / package).rglob("*.py")):
        for line, name in all_imports(path):
            if any(name == trainer or name.startswith(trainer + ".") for trainer in TRAINERS):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {name}")
    return found


def test_no_study_module_imports_the_trainer():
    assert trainer_imports() == []


def test_a_study_that_imports_the_trainer_is_found(tmp_path, monkeypatch):
    fake = tmp_path / "srcframework"
    (fake / "studies").mkdir(parents=True)
    (fake / "studies" / "__init__.py").write_text("")
    (fake / "studies" / "runner.py").write_text(
        "def ensure(config):\n    from allennlp.commands.train import train_model_from_file\n"
        "    from srcframework.training import reader_epoch\n    from allennlp.models import Model\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    assert trainer_imports() == ["srcframework/studies/runner.py:2 imports allennlp.commands.train",
                                 "srcframework/studies/runner.py:3 imports srcframework.training"]


# the significance level and the bootstrap count, defined once: metrics/statistics.py's LEVEL and BOOTSTRAP
DEFINITIONS = "metrics/statistics.py"
LEVEL_TEXT = re.compile(r"(?<![\d.])0\.05(?!\d)")
BOOTSTRAP_NAMES = {"bootstrap", "resamples", "BOOTSTRAP", "RESAMPLES"}


def _docstrings(tree: ast.AST) -> Set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                found.add(id(first.value))
    return found


def _is_bootstrap_count(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 1000


def second_definitions() -> List[str]:
    """Each place outside metrics/statistics.py that writes the level (0.05, as a number or in a
    caption's text; docstrings may document a default) or the bootstrap count (1000 given to a name
    or an argument called bootstrap or resamples, or as the default of a `--bootstrap` option)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE)
        if where.as_posix() == DEFINITIONS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        docstrings = _docstrings(tree)
        for node in ast.walk(tree):
            line = getattr(node, "lineno", 0)
            if isinstance(node, ast.Constant) and type(node.value) is float and node.value == 0.05:
                found.append(f"{where}:{line}: the level 0.05")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings \
                    and LEVEL_TEXT.search(node.value):
                found.append(f"{where}:{line}: the level 0.05 in a text")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                arguments = node.args.posonlyargs + node.args.args
                defaults = list(zip(arguments[len(arguments) - len(node.args.defaults):], node.args.defaults))
                defaults += [(a, d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is not None]
                found += [f"{where}:{line}: the bootstrap count 1000 ({a.arg})" for a, d in defaults
                          if a.arg in BOOTSTRAP_NAMES and _is_bootstrap_count(d)]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and _is_bootstrap_count(node.value):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found += [f"{where}:{line}: the bootstrap count 1000 ({t.id})" for t in targets
                          if isinstance(t, ast.Name) and t.id in BOOTSTRAP_NAMES]
            elif isinstance(node, ast.Call):
                options = {a.value.lstrip("-") for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
                for keyword in node.keywords:
                    named = keyword.arg in BOOTSTRAP_NAMES or (keyword.arg == "default" and options & BOOTSTRAP_NAMES)
                    if named and _is_bootstrap_count(keyword.value):
                        found.append(f"{where}:{line}: the bootstrap count 1000 ({keyword.arg})")
    return found


def test_the_level_and_the_bootstrap_count_are_defined_once():
    from srcframework.metrics import statistics

    assert (statistics.LEVEL, statistics.BOOTSTRAP) == (0.05, 1000)
    assert second_definitions() == []


def test_a_second_level_or_bootstrap_count_is_found(tmp_path, monkeypatch):
    fake = tmp_path / "srcframework"
    (fake / "metrics").mkdir(parents=True)
    (fake / "studies").mkdir()
    (fake / "metrics" / "statistics.py").write_text("LEVEL = 0.05\nBOOTSTRAP = 1000\n")
    (fake / "studies" / "tables.py").write_text(
        'def note(bootstrap=1000, size=1000):\n    """p below 0.05 (documented)."""\n    return "p < 0.05"\n\n\n'
        "ALPHA = 0.05\nresamples: int = 1000\n\n\ndef options(parser):\n"
        "    parser.add_argument('--bootstrap', type=int, default=1000)\n    parser.add_argument('--top', default=1000)\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    assert sorted(second_definitions()) == sorted([
        "studies/tables.py:1: the bootstrap count 1000 (bootstrap)",
        "studies/tables.py:3: the level 0.05 in a text",
        "studies/tables.py:6: the level 0.05",
        "studies/tables.py:7: the bootstrap count 1000 (resamples)",
        "studies/tables.py:11: the bootstrap count 1000 (default)",
    ])
