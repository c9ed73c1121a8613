"""A recipe as data: `recipes/NAME/recipe.jsonnet`, read into its steps.

The file is a Jsonnet function of `runs` (the folder its outputs go under, default `runs`) that
returns an object with

- `description`: one line;
- `env`: variables every step sees (the `std.extVar`s of its configs and studies);
- `trainings`: `{id: {config, folder, seeds, threads, card, depends_on, env, optional}}`. With
  `seeds`, the training is one step a seed, `ID_s1`, `ID_s2`..., each with `SEED` set and `{seed}`
  in `folder`, `depends_on` and `env` replaced; the first seed's archive goes into the models
  folder under `card`;
- `steps`: `{name: {needs, command | job, inputs, outputs, optional}}`: a command line (`allennlp
  ...` and `python ...` run with this installation's programs) or a registered `RecipeJob`
  (`{type: 'compare', ...}`), the files it reads besides its needs' outputs, and what it writes.
  An `optional` step runs only when named;
- `groups`: `{name: [steps]}`, names that pick several steps (`train` picks every training).

The recipe is evaluated with the environment's variables (and the data locations of
`srcframework.config_defaults`) as its `std.extVar`s.

Steps run in the order their needs give (ties: other steps before trainings, then by name).
"""
import json
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import _jsonnet

from srcframework.common.errors import InputError, did_you_mean
from srcframework.store.paths import recipes_dir

RECIPE_FILE = "recipe.jsonnet"
TRAINING_KEYS = {"config", "folder", "seeds", "threads", "card", "depends_on", "env", "optional"}
STEP_KEYS = {"needs", "command", "job", "inputs", "outputs", "optional", "env"}


@dataclass(frozen=True)
class Step:
    """One step of a recipe: a training (one seed of it) or a command or job."""

    name: str
    needs: Tuple[str, ...] = ()
    env: Dict[str, str] = field(default_factory=dict)
    # a training
    config: Optional[str] = None
    folder: Optional[str] = None
    seed: Optional[int] = None
    threads: Optional[int] = None
    card: Optional[str] = None  # installed from this step's archive
    training: Optional[str] = None  # the training id (several seeds share it)
    # another step
    command: Tuple[str, ...] = ()
    job: Optional[dict] = None
    inputs: Tuple[str, ...] = ()
    outputs: Tuple[str, ...] = ()
    optional: bool = False

    @property
    def is_training(self) -> bool:
        return self.config is not None

    @property
    def archive(self) -> Optional[str]:
        return os.path.join(self.folder, "model.tar.gz") if self.folder else None


@dataclass(frozen=True)
class Recipe:
    """The steps of a recipe in the order they run, and the names that pick several of them."""

    name: str
    path: str
    description: str
    env: Dict[str, str]
    steps: Tuple[Step, ...]
    groups: Dict[str, Tuple[str, ...]]

    def step(self, name: str) -> Step:
        return next(step for step in self.steps if step.name == name)

    def select(self, names: List[str]) -> List[str]:
        """The steps that `names` (step names, training ids, `train`) pick, in run order; an unknown
        name is an `InputError`. No names: every step that is not optional."""
        if not names:
            return [step.name for step in self.steps if not step.optional]
        known = {step.name for step in self.steps}
        picked = set()
        for name in names:
            if name in known:
                picked.add(name)
            elif name in self.groups:
                picked.update(self.groups[name])
            elif name in ("status", "snapshot", "list"):  # what run.sh took as steps before
                raise InputError(f"recipe {self.name}: {name} is not a step; run `allennlp recipe {name} {self.name}`")
            else:
                choices = sorted(known | set(self.groups))
                hint = did_you_mean(name, choices)
                raise InputError(f"recipe {self.name}: no step {name!r}" + (f"; {hint}" if hint else "")
                                 + f" (steps: {', '.join(choices)})")
        return [step.name for step in self.steps if step.name in picked]

    def needs_of(self, names) -> set:
        """The names of the steps that the steps `names` need, directly or through other steps."""
        needed, waiting = set(), [need for name in names for need in self.step(name).needs]
        while waiting:
            name = waiting.pop()
            if name not in needed:
                needed.add(name)
                waiting.extend(self.step(name).needs)
        return needed

    def until(self, names: List[str], last: str, explicit: bool = False) -> List[str]:
        """`names` that the step `last` (or each step of the group `last`) needs, directly or
        through other steps, and `last` itself: what it takes to reach `last`, not every step
        that happens to run before it. `last` runs even where `names` leave it out (an optional
        step); a step of `names` that `last` does not need is an `InputError`, unless `names` are
        the default selection (`explicit` false)."""
        ends = set(self.select([last]))
        wanted = ends | self.needs_of(ends)
        dropped = [name for name in names if name not in wanted]
        if explicit and dropped:
            raise InputError(f"recipe {self.name}: --until {last} does not need {', '.join(dropped)}; "
                             f"run {'it' if len(dropped) == 1 else 'them'} without --until")
        return [step.name for step in self.steps if step.name in ends or (step.name in wanted and step.name in names)]


def recipe_names(folder: Optional[str] = None) -> List[str]:
    folder = folder or recipes_dir()
    if not os.path.isdir(folder):
        return []
    return sorted(name for name in os.listdir(folder) if os.path.isfile(os.path.join(folder, name, RECIPE_FILE)))


def recipe_path(name: str, folder: Optional[str] = None) -> str:
    """The recipe.jsonnet of `name`: a recipe of `recipes/`, or a path to a recipe folder or file."""
    if name.endswith(".jsonnet") and os.path.isfile(name):
        return name
    if os.path.isfile(os.path.join(name, RECIPE_FILE)):
        return os.path.join(name, RECIPE_FILE)
    folder = folder or recipes_dir()
    path = os.path.join(folder, name, RECIPE_FILE)
    if not os.path.isfile(path):
        names = recipe_names(folder)
        hint = did_you_mean(name, names)
        raise InputError(f"no recipe {name!r}" + (f"; {hint}" if hint else "") + f" (recipes: {', '.join(names)})")
    return path


def _strings(value, where: str) -> Tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, (str, int, float)) for item in value):
        raise InputError(f"{where}: give a list of strings, not {json.dumps(value)}")
    return tuple(str(item) for item in value)


def _env(value, where: str) -> Dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"{where}: give an object of variables, not {json.dumps(value)}")
    return {str(key): str(item) for key, item in value.items()}


def _unknown(raw: dict, allowed: set, where: str) -> None:
    extra = sorted(set(raw) - allowed)
    if extra:
        raise InputError(f"{where}: unknown key {extra[0]!r} (keys: {', '.join(sorted(allowed))})")


def _trainings(name: str, raw: dict) -> Tuple[List[Step], Dict[str, Tuple[str, ...]]]:
    steps, groups = [], {}
    for training, spec in sorted(raw.items()):
        where = f"recipe {name}, training {training}"
        if not isinstance(spec, dict):
            raise InputError(f"{where}: give an object with config and folder")
        _unknown(spec, TRAINING_KEYS, where)
        for key in ("config", "folder"):
            if not isinstance(spec.get(key), str) or not spec[key]:
                raise InputError(f"{where}: needs a `{key}` path")
        seeds = spec.get("seeds")
        if seeds is not None and (not isinstance(seeds, list) or not seeds
                                  or not all(isinstance(seed, int) and not isinstance(seed, bool) for seed in seeds)):
            raise InputError(f"{where}: `seeds` is a list of integers, not {json.dumps(seeds)}")
        if seeds and "{seed}" not in spec["folder"] and len(seeds) > 1:
            raise InputError(f"{where}: with several seeds, `folder` holds {{seed}}")
        threads = spec.get("threads")
        if threads is not None and (not isinstance(threads, int) or threads < 1):
            raise InputError(f"{where}: `threads` is a positive integer, not {json.dumps(threads)}")
        needs, env = _strings(spec.get("depends_on"), f"{where}, depends_on"), _env(spec.get("env"), where)
        common = dict(config=spec["config"], threads=threads, training=training, optional=bool(spec.get("optional", False)))
        if not seeds:
            steps.append(Step(name=training, folder=spec["folder"], card=spec.get("card"), needs=needs, env=env, **common))
            continue
        names = []
        for number, seed in enumerate(seeds):
            step_name = f"{training}_s{seed}"
            names.append(step_name)
            put = lambda text: text.replace("{seed}", str(seed))  # noqa: E731
            steps.append(Step(name=step_name, folder=put(spec["folder"]), seed=seed, card=spec.get("card") if number == 0 else None,
                              needs=tuple(put(need) for need in needs),
                              env={**{key: put(value) for key, value in env.items()}, "SEED": str(seed)}, **common))
        groups[training] = tuple(names)
    return steps, groups


def _other_steps(name: str, raw: dict) -> List[Step]:
    steps = []
    for step_name, spec in sorted(raw.items()):
        where = f"recipe {name}, step {step_name}"
        if not isinstance(spec, dict):
            raise InputError(f"{where}: give an object with a command or a job")
        _unknown(spec, STEP_KEYS, where)
        if ("command" in spec) == ("job" in spec):
            raise InputError(f"{where}: give a `command` (a list of arguments) or a `job` (an object with a type), one of them")
        job = spec.get("job")
        if job is not None and not (isinstance(job, dict) and isinstance(job.get("type"), str)):
            raise InputError(f"{where}: a `job` is an object with a `type`, not {json.dumps(job)}")
        command = _strings(spec.get("command"), f"{where}, command")
        if "command" in spec and not command:
            raise InputError(f"{where}: an empty command")
        outputs = _strings(spec.get("outputs"), f"{where}, outputs")
        if not outputs:
            raise InputError(f"{where}: name its `outputs` (what says it is done)")
        steps.append(Step(name=step_name, needs=_strings(spec.get("needs"), f"{where}, needs"), env=_env(spec.get("env"), where),
                          command=command, job=job, inputs=_strings(spec.get("inputs"), f"{where}, inputs"),
                          outputs=outputs, optional=bool(spec.get("optional", False))))
    return steps


def _ordered(name: str, steps: List[Step], groups: Dict[str, Tuple[str, ...]]) -> Tuple[Step, ...]:
    """The steps in an order their needs allow (a need may be a training id: all its seeds)."""
    by_name = {step.name: step for step in steps}
    resolved = {}
    for step in steps:
        needs = []
        for need in step.needs:
            if need in by_name:
                needs.append(need)
            elif need in groups:
                needs.extend(groups[need])
            else:
                hint = did_you_mean(need, list(by_name) + list(groups))
                raise InputError(f"recipe {name}, step {step.name}: needs {need!r}, which the recipe does not declare"
                                 + (f"; {hint}" if hint else ""))
        resolved[step.name] = tuple(dict.fromkeys(needs))
    done: List[str] = []
    left = sorted(by_name, key=lambda step: (by_name[step].is_training, step))
    while left:
        ready = [step for step in left if all(need in done for need in resolved[step])]
        if not ready:
            raise InputError(f"recipe {name}: the needs of {', '.join(left)} go round in a circle")
        done.append(ready[0])
        left.remove(ready[0])
    return tuple(Step(**{**by_name[step].__dict__, "needs": resolved[step]}) for step in done)


def load_recipe(name: str, runs: str = "runs", folder: Optional[str] = None) -> Recipe:
    """
    Reads a recipe.

    # Parameters

    name : `str`
        A recipe of `recipes/` (`quickstart`), or the path of a recipe folder or recipe.jsonnet.
    runs : `str`, optional (default = `"runs"`)
        The folder the recipe's outputs go under (its `runs` argument).
    folder : `str`, optional
        The recipes folder (default: `recipes/` of this clone).
    """
    path = recipe_path(name, folder)
    label = os.path.basename(os.path.dirname(os.path.abspath(path)))
    from srcframework import config_defaults

    try:
        raw = json.loads(_jsonnet.evaluate_file(path, tla_vars={"runs": runs}, ext_vars=config_defaults.export()))
    except RuntimeError as err:
        raise InputError(f"{path}: cannot evaluate the recipe: {str(err).splitlines()[0]}") from None
    if not isinstance(raw, dict):
        raise InputError(f"{path}: a recipe is an object (or a function of `runs` returning one)")
    _unknown(raw, {"description", "env", "trainings", "steps", "groups"}, f"recipe {label}")
    trainings, groups = _trainings(label, raw.get("trainings") or {})
    others = _other_steps(label, raw.get("steps") or {})
    clash = sorted({step.name for step in trainings} & ({step.name for step in others} | set(groups)))
    if clash:
        raise InputError(f"recipe {label}: {clash[0]!r} names both a training and a step")
    steps = _ordered(label, trainings + others, groups)
    groups = dict(groups)
    for group, names in sorted((raw.get("groups") or {}).items()):
        if group in {step.name for step in steps} or group in groups:
            raise InputError(f"recipe {label}: the group {group!r} has the name of a step or training")
        groups[group] = tuple(_strings(names, f"recipe {label}, group {group}"))
        unknown = sorted(set(groups[group]) - {step.name for step in steps})
        if unknown:
            raise InputError(f"recipe {label}, group {group}: no step {unknown[0]!r}")
    if "train" not in groups and "train" not in {step.name for step in steps}:
        groups["train"] = tuple(step.name for step in steps if step.is_training)
    return Recipe(name=label, path=path, description=str(raw.get("description", "")), env=_env(raw.get("env"), label),
                  steps=steps, groups=groups)
