"""A model-comparison study: which model archives to run on which test sets.

A study is a Jsonnet (or JSON) file, evaluated like a training config (`std.extVar` reads the
environment; importing srcframework sets the defaults of `srcframework/config_defaults.py`):

```jsonnet
{
  models: {
    bidaf: { archive: 'runs/bidaf/model.tar.gz' },          // input: 'text' (default) or 'audio'
    robust: { archives: ['runs/r1/model.tar.gz', 'runs/r2/model.tar.gz'],   // one archive per seed
              twin: 'bidaf', trained_on_noise: ['keyboard', 'asr'] },
    named: { model: 'bidaf-noise-augmented' },   // a model card's id: the archive `allennlp models` names
    e2e: { archive: 'runs/e2e/model.tar.gz', input: 'audio' },
  },
  test_sets: {
    clean: { data: 'xquad.en.json', interface: 'clean', kind: 'natural' },
    noiseqa_asr: { data: 'xquad-asr.json', interface: 'asr', kind: 'synthetic', original: 'xquad.en.json' },
    keyboard: { data: 'runs/x/keyboard.json', interface: 'keyboard', kind: 'synthetic',  // `allennlp noise` made it
                generator: 'keyboard' },     // what made the noise (held out unless a model trained on it)
    transcripts: { data: 'runs/src/transcripts.json', interface: 'asr', kind: 'natural' },
    spoken: { data: 'src/fid2qid_dev.csv', input: 'audio', interface: 'accent', kind: 'natural',
              wer_from: 'transcripts' },  // optionally dataset_reader: { type: 'squad_src', ... }
  },
  pairs: [['bidaf', '*'], ['e2e', 'spoken']],   // optional; default: every model x every set of its input
  bootstrap_unit: 'context',    // optional: resample paragraphs (default) or 'question's
  equivalence_margin: 1.5,      // optional: F1 points within which clean F1 counts as unchanged
  comparisons: {                // optional: pairs compared across sets, over the question ids they share
    e2e_vs_cascade: { first: { model: 'e2e', set: 'spoken' }, second: { model: 'bidaf', set: 'transcripts' },
                      label: 'end to end against the cascade' },
  },                            // (or a list of such entries; a list entry's name is its label)
  set_groups: [                 // optional: further groups of noisy sets for each model with a twin
    { name: 'unseen', sets: ['noiseqa_asr'], label: 'unseen generator', declared: '2026-12-02, a correction' },
  ],                            // (or an object of name -> group, listed in sorted order)
}
```

Paths are relative to the working directory (the repository root), as in training configs.
Every problem is a `StudyError` that names the study file and the key. A study only evaluates: a
model to train (`config`) or a test set to generate (`noise`) is a one-line error that names the
recipe step that makes it (a training of `recipes/NAME/recipe.jsonnet`; a command step running
`allennlp noise`).
"""
import copy
import json
import os
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from allennlp.common import Params

from srcframework import config_defaults

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
INPUTS = ("text", "audio")
KINDS = ("synthetic", "natural")
CLEAN = "clean"
BOOTSTRAP_UNITS = ("context", "question")
EQUIVALENCE_MARGIN = 1.5
STUDY_KEYS = {"models", "test_sets", "pairs", "bootstrap_unit", "equivalence_margin", "comparisons", "set_groups"}
SET_GROUP_KEYS = {"sets", "label", "declared"}
COMPARISON_KEYS = {"first", "second", "label"}
SIDE_KEYS = {"model", "set"}
MODEL_KEYS = {"archive", "archives", "model", "input", "cuda_device", "batch_size", "order", "twin", "trained_on_noise"}
SET_KEYS = {
    "data", "interface", "kind", "original", "dataset_reader", "input", "reference", "wer_from", "order", "generator",
    "control",
}
# what a study once made itself, now a recipe's: the one-line error says which step makes it
TRAINING_KEYS = ("config", "serialization_dir")
GENERATING_KEYS = ("noise", "seed")


class StudyError(ValueError):
    """A bad study file; the message names the file and the key."""


@dataclass(frozen=True)
class ModelSpec:
    """
    One model of a study.

    # Parameters

    name : `str`
    archive : `str`
        `model.tar.gz` to load (a recipe's training makes it). With `archives`, the first of them.
    input : `str`, optional (default = `"text"`)
        The question modality the model takes: `text` or `audio`.
    cuda_device : `int`, optional (default = `-1`)
    batch_size : `int`, optional (default = `32`)
    order : `int`, optional (default = `0`)
        Tables list models by (`order`, name).
    twin : `str`, optional
        Another model of the study: the same model trained on clean questions. The `robustness`
        table then gives this model's mean F1 drop over the noisy sets against the twin's, and
        the change in clean F1.
    archives : `Tuple[str, ...]`, optional
        One archive per training seed of the model (study key `archives`, instead of `archive`):
        every archive runs on every set, and the model's figures and intervals combine the seeds
        (`metrics/statistics.py`, `Resampler`). Default: `(archive,)`.
    trained_on_noise : `Tuple[str, ...]`, optional
        The noise generators the model was trained on (names that test sets give as `generator`).
        The `robustness` table then splits its noisy sets into those made by a generator in this
        list and those of a held-out generator. None: not declared (no split).
    card : `str`, optional
        The model card id the study named the model by (study key `model`), recorded in the
        results so that the card finds its figures wherever the models folder is.
    """

    name: str
    archive: str
    input: str = "text"
    cuda_device: int = -1
    batch_size: int = 32
    order: int = 0
    twin: Optional[str] = None
    archives: Tuple[str, ...] = ()
    trained_on_noise: Optional[Tuple[str, ...]] = None
    card: Optional[str] = None

    def __post_init__(self) -> None:
        if not self.archives:
            object.__setattr__(self, "archives", (self.archive,))


@dataclass(frozen=True)
class TestSetSpec:
    """
    One test set of a study: a file (or folder) to read. A set made with a noise source is made by
    a recipe step (`allennlp noise ORIGINAL OUT --noise ...`) and named here by its file.

    # Parameters

    name : `str`
    interface : `str`
        The interface the questions came through: `clean`, `asr`, `keyboard`, `translation`,
        `accent`, ... (a label; `clean` marks the sets that drops are measured from).
    kind : `str`
        `synthetic` or `natural`.
    data : `str`
        The SQuAD-format file (or, for an audio reader, the folder) the reader reads. A set that
        `allennlp noise` made records its noise configuration, which the results keep
        (`noise_source`).
    original : `str`, optional
        The clean SQuAD file the questions came from, paired by question id, for question CER/WER/
        BLEU where the set's questions carry no `original_question`.
    dataset_reader : `dict`, optional
        Params of the dataset reader to use instead of each model archive's validation reader (for
        example the `squad_src` reader of an audio folder).
    input : `str`, optional (default = `"text"`)
        The question modality of the set: `text` or `audio`.
    reference : `str`, optional
        The clean set whose F1 the drop is measured from. Default: the one `clean` set of the same
        input, if there is exactly one.
    wer_from : `str`, optional
        Another set whose question noise describes this one's (an audio set's noise is the WER of
        the transcripts of the same recordings).
    order : `int`, optional (default = `0`)
        Tables list sets by (`order`, clean sets first, name).
    generator : `str`, optional
        What made the set's noise (e.g. `keyboard`, `asr`, `noiseqa_asr`), compared with each
        model's `trained_on_noise`. Noisy sets only.
    control : `dict`, optional
        Params of a registered `QuestionControl` (`swapped_question`, `silent_question`): the
        listening test. The set is read as its `data` and reader say, then each question's input is
        replaced (another question's of the same paragraph, or silence) before the model sees it;
        ids, contexts and answers stay. Compare it with the matched set (the same `data` without
        `control`) in `comparisons`: the gap is what the model takes from the question.
    """

    name: str
    interface: str
    kind: str
    data: str
    original: Optional[str] = None
    dataset_reader: Optional[Dict[str, Any]] = None
    input: str = "text"
    reference: Optional[str] = None
    wer_from: Optional[str] = None
    order: int = 0
    generator: Optional[str] = None
    control: Optional[Dict[str, Any]] = None

    @property
    def is_clean(self) -> bool:
        return self.interface == CLEAN


@dataclass(frozen=True)
class ComparisonSpec:
    """
    One comparison of a study across sets: the pair `first` against the pair `second`, over the
    question ids both hold (e.g. an end-to-end model on spoken questions against a cascade's text
    model on the transcripts of the same recordings).

    # Parameters

    name : `str`
        The entry's name (an object's key; a list entry's label).
    first : `Tuple[str, str]`
        `(model, test set)`: a pair the study runs.
    second : `Tuple[str, str]`
    label : `str`
        What the results table calls it. Default: `MODEL on SET vs MODEL on SET`.
    """

    name: str
    first: Tuple[str, str]
    second: Tuple[str, str]
    label: str


@dataclass(frozen=True)
class SetGroupSpec:
    """
    A group of noisy sets declared apart from the generator split (study key `set_groups`): each
    model with a twin is also compared with it over these sets (`set_groups.py`), one family of
    tests. A group declared after the results were seen says so in `declared`.

    # Parameters

    name : `str`
    sets : `Tuple[str, ...]`
        Noisy sets of the study.
    label : `str`
        What the tables call the group. Default: its name.
    declared : `str`, optional
        When and why the group was declared (e.g. `2026-12-02, a correction after the results`).
    """

    name: str
    sets: Tuple[str, ...]
    label: str
    declared: Optional[str] = None


@dataclass(frozen=True)
class Study:
    """A loaded, validated study: models and test sets in table order, and the pairs to run.

    # Parameters

    path : `str`
    models : `Dict[str, ModelSpec]`
    test_sets : `Dict[str, TestSetSpec]`
    pairs : `List[Tuple[str, str]]`
    bootstrap_unit : `str`, optional (default = `"context"`)
        What the bootstrap and the randomisation tests resample: `context` (the questions of one
        paragraph together) or `question`.
    equivalence_margin : `float`, optional (default = `1.5`)
        The margin (F1 points) of the equivalence test of each robust model's clean F1 against its
        twin's.
    comparisons : `Tuple[ComparisonSpec, ...]`, optional (default = `()`)
        Pairs compared across sets (study key `comparisons`), one Holm family.
    set_groups : `Tuple[SetGroupSpec, ...]`, optional (default = `()`)
        Further groups of noisy sets over which each model is compared with its twin.
    """

    path: str
    models: Dict[str, ModelSpec]
    test_sets: Dict[str, TestSetSpec]
    pairs: List[Tuple[str, str]]
    bootstrap_unit: str = "context"
    equivalence_margin: float = EQUIVALENCE_MARGIN
    comparisons: Tuple[ComparisonSpec, ...] = ()
    set_groups: Tuple[SetGroupSpec, ...] = ()

    @property
    def runs(self) -> List[Tuple[str, str, int]]:
        """`(model, set, seed index)` of every archive of every pair, in pair order."""
        return [(model, test_set, index) for model, test_set in self.pairs for index in range(len(self.models[model].archives))]

    def reference_of(self, set_name: str) -> Optional[str]:
        """The clean set that `set_name`'s drop is measured from (None for clean sets)."""
        spec = self.test_sets[set_name]
        return None if spec.is_clean else spec.reference


class _Checker:
    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, key: str, message: str) -> None:
        raise StudyError(f"{self.path}: {key}: {message}")

    def mapping(self, value: Any, key: str) -> dict:
        if not isinstance(value, dict):
            self.fail(key, f"expected an object, got {type(value).__name__}")
        return value

    def keys(self, value: dict, key: str, allowed: set) -> None:
        unknown = sorted(set(value) - allowed)
        if unknown:
            self.fail(f"{key}.{unknown[0]}", f"unknown key; the keys are {', '.join(sorted(allowed))}")

    def name(self, name: str, key: str) -> None:
        if not NAME_PATTERN.match(name):
            self.fail(key, f"name {name!r} must be letters, digits, '_', '.' or '-' (it names a folder)")

    def entry(self, section: str, name: str, value: Any, allowed: set) -> Tuple[str, dict]:
        """`(key, settings)` of the entry `name` of `section` (`models`, `test_sets`): its name,
        its being an object and its keys checked."""
        key = f"{section}.{name}"
        self.name(name, key)
        value = self.mapping(value, key)
        self.keys(value, key, allowed)
        return key, value

    def string(self, value: Any, key: str, optional: bool = False) -> Optional[str]:
        if value is None and optional:
            return None
        if not isinstance(value, str) or not value.strip():
            self.fail(key, f"expected a non-empty string, got {value!r}")
        return value

    def integer(self, value: Any, key: str, minimum: Optional[int] = None) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            self.fail(key, f"expected an integer, got {value!r}")
        if minimum is not None and value < minimum:
            self.fail(key, f"must be at least {minimum}, got {value}")
        return value

    def strings(self, value: Any, key: str, minimum: int = 0) -> Tuple[str, ...]:
        """A list of distinct non-empty strings, at least `minimum` of them."""
        if not isinstance(value, list) or len(value) < minimum:
            self.fail(key, f"expected a list of {'at least one ' if minimum else ''}non-empty string(s), got {value!r}")
        found = tuple(self.string(item, f"{key}[{index}]") for index, item in enumerate(value))
        if len(set(found)) != len(found):
            self.fail(key, f"lists an entry twice: {value!r}")
        return found

    def number(self, value: Any, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            self.fail(key, f"expected a positive number, got {value!r}")
        return float(value)

    def choice(self, value: Any, key: str, choices: tuple) -> str:
        if value not in choices:
            self.fail(key, f"must be one of {', '.join(choices)}; got {value!r}")
        return value

    def exists(self, path: Optional[str], key: str) -> None:
        if path is not None and not os.path.exists(path):
            self.fail(key, f"not found: {path} (paths are relative to {os.getcwd()})")


def card_archive(check: "_Checker", key: str, model_id: str, require_files: bool) -> str:
    """The archive of a model card's id: `pretrained.archive_path` (which fetches a hosted copy),
    or without `require_files` where the models folder would keep it."""
    from srcframework import pretrained

    try:
        return pretrained.archive_path(model_id) if require_files else (
            pretrained.model_card(model_id) and pretrained.installed_path(model_id))
    except Exception as err:  # an unknown card, a missing archive: one line
        check.fail(key, " ".join(str(err).split()))


def _model(check: _Checker, name: str, value: Any, require_files: bool) -> ModelSpec:
    key = f"models.{name}"
    if isinstance(value, dict) and any(k in value for k in TRAINING_KEYS):
        check.fail(key, "a study only evaluates; train the model with a recipe training (`trainings` of "
                        "recipes/NAME/recipe.jsonnet, `allennlp recipe run NAME`) and give its `archive` or card id (`model`)")
    key, value = check.entry("models", name, value, MODEL_KEYS)
    archive = value.get("archive")
    archives: Tuple[str, ...] = ()
    card = None
    if "model" in value:  # a model card's id: its archive from the models folder (or its hosted copy)
        if archive is not None or "archives" in value:
            check.fail(f"{key}.model", "give a model card id (`model`) or `archive`/`archives`, not both")
        card = check.string(value["model"], f"{key}.model")
        archive = card_archive(check, f"{key}.model", card, require_files)
    if "archives" in value:
        if archive is not None:
            check.fail(f"{key}.archives", "give either `archives` (one per seed) or `archive`, not both")
        archives = check.strings(value["archives"], f"{key}.archives", minimum=1)
        archive = archives[0]
    if archive is None:
        check.fail(f"{key}.archive", "required (a model.tar.gz), or `archives` (one per seed) or `model` (a card id)")
    archive = check.string(archive, f"{key}.archive")
    if require_files:
        for index, path in enumerate(archives or (archive,)):
            check.exists(path, f"{key}.archives[{index}]" if archives else f"{key}.archive")
    trained_on = value.get("trained_on_noise")
    return ModelSpec(
        name=name,
        archive=archive,
        input=check.choice(value.get("input", "text"), f"{key}.input", INPUTS),
        cuda_device=check.integer(value.get("cuda_device", -1), f"{key}.cuda_device", minimum=-1),
        batch_size=check.integer(value.get("batch_size", 32), f"{key}.batch_size", minimum=1),
        order=check.integer(value.get("order", 0), f"{key}.order"),
        twin=check.string(value.get("twin"), f"{key}.twin", optional=True),
        archives=archives,
        trained_on_noise=None if trained_on is None else check.strings(trained_on, f"{key}.trained_on_noise"),
        card=card,
    )


def _check_twins(check: _Checker, models: Dict[str, ModelSpec]) -> None:
    for name, model in models.items():
        if model.twin is not None and (model.twin == name or model.twin not in models):
            check.fail(f"models.{name}.twin", f"must name another model of the study, got {model.twin!r}")


def _test_set(check: _Checker, name: str, value: Any, require_files: bool) -> TestSetSpec:
    key = f"test_sets.{name}"
    if isinstance(value, dict) and any(k in value for k in GENERATING_KEYS):
        check.fail(key, "a study only evaluates; make the set with a recipe step (`allennlp noise ORIGINAL OUT "
                        "--noise ...`) and give its file as `data`")
    key, value = check.entry("test_sets", name, value, SET_KEYS)
    data = check.string(value.get("data"), f"{key}.data")
    original = check.string(value.get("original"), f"{key}.original", optional=True)
    reader = value.get("dataset_reader")
    if reader is not None:
        check.string(check.mapping(reader, f"{key}.dataset_reader").get("type"), f"{key}.dataset_reader.type")
    if require_files:
        check.exists(data, f"{key}.data")
        check.exists(original, f"{key}.original")
    control = _control(check, value.get("control"), f"{key}.control")
    generator = check.string(value.get("generator"), f"{key}.generator", optional=True)
    if generator is not None and value.get("interface") == CLEAN:
        check.fail(f"{key}.generator", "a clean set has no noise generator; remove `generator`")
    return TestSetSpec(
        name=name,
        interface=check.string(value.get("interface"), f"{key}.interface"),
        kind=check.choice(value.get("kind"), f"{key}.kind", KINDS),
        data=data,
        original=original,
        dataset_reader=reader,
        input=check.choice(value.get("input", "text"), f"{key}.input", INPUTS),
        reference=check.string(value.get("reference"), f"{key}.reference", optional=True),
        wer_from=check.string(value.get("wer_from"), f"{key}.wer_from", optional=True),
        order=check.integer(value.get("order", 0), f"{key}.order"),
        generator=generator,
        control=control,
    )


def _control(check: _Checker, value: Any, key: str) -> Optional[Dict[str, Any]]:
    """A test set's `control`, built once so that a wrong name or setting is one line at load
    time; its `describe()` (defaults filled in) is what the pair's cache key holds."""
    if value is None:
        return None
    from srcframework.data.question_controls import QuestionControl

    value = check.mapping(value, key)
    name = check.string(value.get("type"), f"{key}.type")
    if name not in QuestionControl.list_available():
        check.fail(f"{key}.type", f"no question control {name!r}; registered: {', '.join(sorted(QuestionControl.list_available()))}")
    try:
        return QuestionControl.from_params(Params(copy.deepcopy(value))).describe()
    except Exception as err:  # a ConfigurationError or a wrong argument: one line
        check.fail(key, str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__)


def _resolve_references(check: _Checker, sets: Dict[str, TestSetSpec]) -> Dict[str, TestSetSpec]:
    resolved = {}
    for name, spec in sets.items():
        reference = spec.reference
        key = f"test_sets.{name}.reference"
        if spec.is_clean:
            if reference is not None:
                check.fail(key, "a clean set is itself the reference; remove `reference`")
        elif reference is not None:
            if reference not in sets:
                check.fail(key, f"no test set named {reference!r}")
            if not sets[reference].is_clean:
                check.fail(key, f"{reference!r} is not a clean set (interface 'clean')")
        else:
            candidates = [other for other, s in sets.items() if s.is_clean and s.input == spec.input]
            if len(candidates) > 1:
                check.fail(key, f"several clean {spec.input} sets ({', '.join(candidates)}): name one")
            reference = candidates[0] if candidates else None
        if spec.wer_from is not None:
            if spec.wer_from not in sets:
                check.fail(f"test_sets.{name}.wer_from", f"no test set named {spec.wer_from!r}")
            if spec.wer_from == name or sets[spec.wer_from].wer_from is not None:
                check.fail(f"test_sets.{name}.wer_from", "must name a set that has its own questions (no chains)")
        resolved[name] = TestSetSpec(**{**spec.__dict__, "reference": reference})
    return resolved


def _pairs(check: _Checker, value: Any, models: Dict[str, ModelSpec], sets: Dict[str, TestSetSpec]) -> List[Tuple[str, str]]:
    if value is None:
        value = [["*", "*"]]
        explicit = False
    else:
        explicit = True
        if not isinstance(value, list) or not value:
            check.fail("pairs", "expected a non-empty list of [model, test set] (either may be '*')")
    wanted = set()
    for index, item in enumerate(value):
        key = f"pairs[{index}]"
        if not (isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)):
            check.fail(key, f"expected [model, test set], got {item!r}")
        model_name, set_name = item
        if model_name != "*" and model_name not in models:
            check.fail(key, f"no model named {model_name!r}")
        if set_name != "*" and set_name not in sets:
            check.fail(key, f"no test set named {set_name!r}")
        for m in models if model_name == "*" else [model_name]:
            for s in sets if set_name == "*" else [set_name]:
                if models[m].input == sets[s].input:
                    wanted.add((m, s))
                elif model_name != "*" and set_name != "*":
                    check.fail(key, f"model {m!r} takes {models[m].input} questions but test set {s!r} has {sets[s].input}")
    if not wanted:
        check.fail("pairs" if explicit else "models", "no model takes the input of any test set: nothing to run")
    model_rank = {name: i for i, name in enumerate(models)}
    set_rank = {name: i for i, name in enumerate(sets)}
    return sorted(wanted, key=lambda pair: (model_rank[pair[0]], set_rank[pair[1]]))


def _side(check: _Checker, value: Any, key: str, pairs: List[Tuple[str, str]], models: Dict[str, ModelSpec],
          sets: Dict[str, TestSetSpec]) -> Tuple[str, str]:
    value = check.mapping(value, key)
    check.keys(value, key, SIDE_KEYS)
    model = check.string(value.get("model"), f"{key}.model")
    test_set = check.string(value.get("set"), f"{key}.set")
    if model not in models:
        check.fail(f"{key}.model", f"no model named {model!r}")
    if test_set not in sets:
        check.fail(f"{key}.set", f"no test set named {test_set!r}")
    if (model, test_set) not in pairs:
        check.fail(key, f"the study does not run model {model!r} on test set {test_set!r}; add the pair to `pairs`")
    return model, test_set


def cheap_ids(spec: TestSetSpec, cache: Dict[str, Optional[frozenset]]) -> Optional[frozenset]:
    """The question ids of a text set read from a SQuAD file with the archive's reader, or None
    where they cannot be known without reading it as a model would (an audio set, a set's own
    `dataset_reader`, a `control`, which may leave questions out, a missing or unreadable file)."""
    path = spec.data
    if spec.input != "text" or spec.dataset_reader is not None or spec.control is not None or path is None or not os.path.isfile(path):
        return None
    if path not in cache:
        from srcframework.data.squad_file import load_squad_json

        try:
            dataset = load_squad_json(path)
            cache[path] = frozenset(
                str(qa["id"]) for a in dataset["data"] for p in a["paragraphs"] for qa in p["qas"])
        except Exception:  # not a SQuAD file the loader reads: leave the check to the run
            cache[path] = None
    return cache[path]


def _comparisons(check: _Checker, value: Any, pairs: List[Tuple[str, str]], models: Dict[str, ModelSpec],
                 sets: Dict[str, TestSetSpec], require_files: bool) -> Tuple[ComparisonSpec, ...]:
    if value is None:
        return ()
    if isinstance(value, dict):
        entries = [(f"comparisons.{name}", name, item) for name, item in value.items()]
        for key, name, _ in entries:
            check.name(name, key)
    elif isinstance(value, list):
        entries = [(f"comparisons[{index}]", None, item) for index, item in enumerate(value)]
    else:
        check.fail("comparisons", f"expected a list or an object of {{first, second, label}}, got {value!r}")
    found: List[ComparisonSpec] = []
    ids: Dict[str, Optional[frozenset]] = {}
    for key, name, item in entries:
        item = check.mapping(item, key)
        check.keys(item, key, COMPARISON_KEYS)
        for side in ("first", "second"):
            if side not in item:
                check.fail(f"{key}.{side}", "required: {model: M, set: S}")
        first = _side(check, item["first"], f"{key}.first", pairs, models, sets)
        second = _side(check, item["second"], f"{key}.second", pairs, models, sets)
        if first == second:
            check.fail(key, f"compares model {first[0]!r} on test set {first[1]!r} with itself")
        label = check.string(item.get("label"), f"{key}.label", optional=True)
        label = label or name or f"{first[0]} on {first[1]} vs {second[0]} on {second[1]}"
        if any(other.label == label for other in found):
            check.fail(key, f"a second comparison labelled {label!r}; give each its own label")
        if require_files:
            mine, theirs = cheap_ids(sets[first[1]], ids), cheap_ids(sets[second[1]], ids)
            if mine is not None and theirs is not None and not mine & theirs:
                check.fail(key, f"test sets {first[1]!r} and {second[1]!r} share no question id: nothing to pair")
        found.append(ComparisonSpec(name or label, first, second, label))
    return tuple(found)


def _set_groups(check: _Checker, value: Any, sets: Dict[str, TestSetSpec]) -> Tuple[SetGroupSpec, ...]:
    """An object of name -> group, or a list of groups each with its `name` (a list keeps its
    order; Jsonnet writes an object's fields in sorted order)."""
    if value is None:
        return ()
    if isinstance(value, list):
        entries = []
        for index, item in enumerate(value):
            item = check.mapping(item, f"set_groups[{index}]")
            entries.append((check.string(item.get("name"), f"set_groups[{index}].name"),
                            {k: v for k, v in item.items() if k != "name"}))
    else:
        entries = list(check.mapping(value, "set_groups").items())
    found: List[SetGroupSpec] = []
    for name, item in entries:
        key, item = check.entry("set_groups", name, item, SET_GROUP_KEYS)
        if any(group.name == name for group in found):
            check.fail(key, "a second group of this name")
        if "sets" not in item:
            check.fail(f"{key}.sets", "required: a list of noisy test sets")
        members = check.strings(item["sets"], f"{key}.sets", minimum=1)
        for index, member in enumerate(members):
            if member not in sets:
                check.fail(f"{key}.sets[{index}]", f"no test set named {member!r}")
            if sets[member].is_clean:
                check.fail(f"{key}.sets[{index}]", f"{member!r} is a clean set; a group holds noisy sets")
        label = check.string(item.get("label"), f"{key}.label", optional=True) or name
        declared = check.string(item.get("declared"), f"{key}.declared", optional=True)
        found.append(SetGroupSpec(name, members, label, declared))
    return tuple(found)


def study_from_dict(raw: Any, path: str = "<study>", require_files: bool = True) -> Study:
    """Validate an evaluated study; `require_files` also checks that the named files exist."""
    check = _Checker(path)
    raw = check.mapping(raw, "study")
    check.keys(raw, "study", STUDY_KEYS)
    for key in ("models", "test_sets"):
        if not isinstance(raw.get(key), dict) or not raw[key]:
            check.fail(key, "required: a non-empty object of name -> settings")
    models = [_model(check, name, value, require_files) for name, value in raw["models"].items()]
    sets = [_test_set(check, name, value, require_files) for name, value in raw["test_sets"].items()]
    models_by_name = {m.name: m for m in sorted(models, key=lambda m: (m.order, m.name))}
    _check_twins(check, models_by_name)
    sets_by_name = {s.name: s for s in sorted(sets, key=lambda s: (s.order, not s.is_clean, s.name))}
    sets_by_name = _resolve_references(check, sets_by_name)
    pairs = _pairs(check, raw.get("pairs"), models_by_name, sets_by_name)
    unit = check.choice(raw.get("bootstrap_unit", "context"), "bootstrap_unit", BOOTSTRAP_UNITS)
    margin = check.number(raw.get("equivalence_margin", EQUIVALENCE_MARGIN), "equivalence_margin")
    comparisons = _comparisons(check, raw.get("comparisons"), pairs, models_by_name, sets_by_name, require_files)
    set_groups = _set_groups(check, raw.get("set_groups"), sets_by_name)
    return Study(path, models_by_name, sets_by_name, pairs, unit, margin, comparisons, set_groups)


def load_study(path: str, ext_vars: Optional[Dict[str, str]] = None, require_files: bool = True,
               runs: Optional[str] = None) -> Study:
    """Evaluate a Jsonnet/JSON study file (the environment's variables are its `std.extVar`s) and
    validate it. A study that is a function of `runs` (a recipe's study: `function(runs='runs')`,
    reading `(import 'recipe.jsonnet')(runs)`) is called with `runs` where it is given (the recipe
    runner gives the folder its recipe was read with), else with its default."""
    import _jsonnet
    from allennlp.common.params import _environment_variables

    config_defaults.export()
    if not os.path.isfile(path):
        raise StudyError(f"{path}: study file not found")
    try:
        text = _jsonnet.evaluate_file(path, ext_vars={**_environment_variables(), **(ext_vars or {})},
                                      tla_vars={} if runs is None else {"runs": runs})
    except RuntimeError as err:  # jsonnet's evaluation errors
        raise StudyError(f"{path}: cannot evaluate the study file: {err}") from None
    return study_from_dict(json.loads(text), path, require_files)
