"""
Finds the installed plugins (entry points of the `srcframework` group), calls their hooks and
registers what they offer in AllenNLP's registries.

A plugin that cannot be imported, or whose hook raises, is logged with `logger.error`, recorded
in the report's `failures` and skipped; the others load. A plugin that offers a name already
taken (by a built-in or another plugin), or a class of the wrong base, is refused: nothing of it is
registered, it is recorded in `failures` with stage `refused` (the message names both sides of a
clash), and `load_plugins` raises `PluginError` (`PluginTypeError`) once every plugin was seen:
both are mistakes to fix, not to work around silently. Only `load_plugins(strict=False)`, which
`allennlp list-plugins` uses to show what clashes, returns the report instead of raising, and
`load_plugins(uses=KINDS)` raises only for a problem in the registries the caller uses (a command
that builds no noise source runs despite a clash of noise-source names, after its error line).
"""
import copy
import logging
import threading
from dataclasses import asdict, dataclass, field
from importlib import metadata
from typing import Dict, Iterable, List, Optional, Tuple

import pluggy
from allennlp.common import Registrable
from allennlp.data import DatasetReader

from srcframework.modules.field_encoders.field_encoder import FieldEncoder
from srcframework.modules.span_heads.span_head import SpanHead
from srcframework.noise.noise_source import NoiseSource
from srcframework.plugins import hookspecs
from srcframework.speech.engines import SpeechRecognizer, SpeechSynthesizer, Translator

logger = logging.getLogger(__name__)

GROUP = hookspecs.PROJECT_NAME

# hook name -> (kind, what one of them is called, base class)
HOOKS: Dict[str, Tuple[str, str, type]] = {
    "srcframework_noise_sources": ("noise_sources", "noise source", NoiseSource),
    "srcframework_field_encoders": ("field_encoders", "field encoder", FieldEncoder),
    "srcframework_dataset_readers": ("dataset_readers", "dataset reader", DatasetReader),
    "srcframework_speech_synthesizers": ("speech_synthesizers", "speech synthesizer", SpeechSynthesizer),
    "srcframework_speech_recognizers": ("speech_recognizers", "speech recognizer", SpeechRecognizer),
    "srcframework_translators": ("translators", "translator", Translator),
    "srcframework_span_heads": ("span_heads", "span head", SpanHead),
}


class PluginError(RuntimeError):
    """A plugin cannot be used as installed, e.g. it offers a name that is already taken. `kinds`:
    the registries (`HOOKS`' kinds, such as `noise_sources`) the problem is in."""

    def __init__(self, message: str, kinds: Tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.kinds = tuple(kinds)


class PluginTypeError(PluginError, TypeError):
    """A plugin's hook returned something other than `{name: subclass of the hook's base}`."""


@dataclass
class PluginInfo:
    """A loaded plugin: its entry point, distribution, and what it added (kind -> names)."""

    name: str
    value: str
    distribution: Optional[str]
    version: Optional[str]
    added: Dict[str, List[str]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"plugin {self.name!r} (distribution {self.distribution} {self.version}, {self.value})"


@dataclass
class PluginFailure:
    """A plugin that was skipped: where it failed (`import`, `register` or a hook) and why."""

    name: str
    value: str
    distribution: Optional[str]
    version: Optional[str]
    stage: str
    error: str


@dataclass
class PluginReport:
    """What `load_plugins` found for an entry-point group: loaded plugins and failures."""

    group: str
    plugins: List[PluginInfo] = field(default_factory=list)
    failures: List[PluginFailure] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


# Module state, so that loading twice registers nothing twice: per group, the plugin manager and
# what became of each entry point; for every registry entry made, the plugin and class behind it.
_lock = threading.RLock()
_loading = False
_managers: Dict[str, pluggy.PluginManager] = {}
_loaded: Dict[str, Dict[tuple, PluginInfo]] = {}
_failed: Dict[str, Dict[tuple, PluginFailure]] = {}
_refused: Dict[str, Dict[tuple, PluginError]] = {}
_origins: Dict[Tuple[type, str], Tuple[PluginInfo, type]] = {}


def get_plugin_manager(group: str = GROUP) -> pluggy.PluginManager:
    """The pluggy manager holding the loaded plugins of `group`."""
    with _lock:
        if group not in _managers:
            manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
            manager.add_hookspecs(hookspecs)
            _managers[group] = manager
        return _managers[group]


def load_plugins(group: str = GROUP, strict: bool = True, uses: Optional[Iterable[str]] = None) -> PluginReport:
    """
    Loads the plugins of the entry-point `group` not loaded yet, registers their classes, and
    returns a report of every plugin of the group seen so far. Calling it again is cheap and
    changes nothing unless new plugins were installed; a plugin that failed is not retried
    (`unload_plugins` forgets everything).

    # Parameters

    group : `str`, optional (default = `"srcframework"`)
        The entry-point group. Each entry point names a module (or object) with hook
        implementations, e.g. `phonetic = srcframework_phonetic.plugin`.
    strict : `bool`, optional (default = `True`)
        Raise for a refused plugin (this call's or an earlier one's). `False` only reports it.
    uses : `Iterable[str]`, optional (default = `None`)
        The registries (kinds of `HOOKS`, such as `noise_sources`) the caller builds components
        from; `None`: any. With `strict`, only a plugin refused for a problem in one of them is
        raised; one refused elsewhere is only logged (its error line), and the caller runs without
        it: a command that uses no noise source is not stopped by a clash of noise-source names.

    # Raises

    PluginError
        With `strict`: a plugin offers a name already registered for that kind; the message
        names both sides.
    PluginTypeError
        With `strict`: a hook returned something other than `{name: subclass of the hook's base
        class}`.
    """
    global _loading
    with _lock:
        if not _loading:  # a plugin importing srcframework while loading sees the report so far
            _loading = True
            try:
                for entry_point in _entry_points(group):
                    key = _key(entry_point)
                    if key not in _loaded.setdefault(group, {}) and key not in _failed.setdefault(group, {}):
                        _load(group, entry_point, key)
            finally:
                _loading = False
        refused = list(_refused.get(group, {}).values())
        if uses is not None:
            used = set(uses)
            refused = [err for err in refused if not getattr(err, "kinds", ()) or used & set(err.kinds)]
        if strict and refused:
            raise type(refused[0])(str(refused[0]), getattr(refused[0], "kinds", ()))
        return _report(group)


def unload_plugins() -> None:
    """Forgets every plugin and removes the classes they registered (for tests and reloading)."""
    with _lock:
        for (base, name), (_, cls) in _origins.items():
            registry = Registrable._registry.get(base, {})
            if name in registry and registry[name][0] is cls:
                del registry[name]
        _origins.clear()
        _managers.clear()
        _loaded.clear()
        _failed.clear()
        _refused.clear()


def _entry_points(group: str) -> List[metadata.EntryPoint]:
    return sorted(metadata.entry_points(group=group), key=lambda ep: (_distribution(ep)[0] or "", ep.name, ep.value))


def _distribution(entry_point: metadata.EntryPoint) -> Tuple[Optional[str], Optional[str]]:
    dist = getattr(entry_point, "dist", None)
    if dist is None:
        return None, None
    return dist.name, dist.version


def _key(entry_point: metadata.EntryPoint) -> tuple:
    return (_distribution(entry_point)[0], entry_point.name, entry_point.value)


def _class_path(cls: type) -> str:
    return f"{getattr(cls, '__module__', '?')}.{getattr(cls, '__qualname__', repr(cls))}"


def _load(group: str, entry_point: metadata.EntryPoint, key: tuple) -> None:
    info = PluginInfo(entry_point.name, entry_point.value, *_distribution(entry_point))
    try:
        plugin = entry_point.load()
    except Exception as err:
        return _fail(group, key, info, "import", err)
    manager = get_plugin_manager(group)
    plugin_name = f"{info.distribution}:{info.name}"
    try:
        manager.register(plugin, name=plugin_name)
        unknown = [hook.name for hook in manager.get_hookcallers(plugin) or [] if not hook.has_spec()]
        if unknown:
            raise pluggy.PluginValidationError(plugin, f"unknown hook(s) {unknown}; known: {sorted(HOOKS)}")
    except Exception as err:
        if manager.is_registered(plugin):
            manager.unregister(plugin)
        return _fail(group, key, info, "register", err)

    others = [other for name, other in manager.list_name_plugin() if name != plugin_name and other is not None]
    offered: List[Tuple[str, object]] = []  # (hook name, what its hook returned)
    for hook_name in HOOKS:
        try:
            results = manager.subset_hook_caller(hook_name, remove_plugins=others)()
        except Exception as err:
            manager.unregister(plugin)
            return _fail(group, key, info, f"hook {hook_name}", err)
        offered.extend((hook_name, result) for result in results)

    try:
        additions = _check(info, offered)
    except PluginError as err:
        manager.unregister(plugin)
        _refused.setdefault(group, {})[key] = err
        return _fail(group, key, info, "refused", err)
    for base, kind, name, cls in additions:
        base.register(name)(cls)
        _origins[(base, name)] = (info, cls)
        info.added.setdefault(kind, []).append(name)
    _loaded[group][key] = info
    logger.debug("Loaded srcframework %s: %s", info.label, info.added or "nothing")


def _check(info: PluginInfo, offered: List[Tuple[str, object]]) -> List[Tuple[type, str, str, type]]:
    """`(base, kind, name, class)` for each class offered, once all are known to be usable."""
    additions = []
    taken: Dict[Tuple[type, str], type] = {}
    for hook_name, result in offered:
        kind, singular, base = HOOKS[hook_name]
        if not isinstance(result, dict):
            raise PluginTypeError(f"{info.label}: {hook_name} returned {type(result).__name__}, not {{name: class}}",
                                  (kind,))
        for name, cls in result.items():
            where = f"{info.label}: {hook_name} entry {name!r}"
            if not isinstance(name, str) or not name:
                raise PluginTypeError(f"{where}: the name must be a non-empty string", (kind,))
            if not isinstance(cls, type):
                raise PluginTypeError(f"{where} is {cls!r}, not a class", (kind,))
            if not issubclass(cls, base):
                raise PluginTypeError(
                    f"{where}: {_class_path(cls)} is not a subclass of {_class_path(base)}, "
                    f"so it cannot be a {singular}",
                    (kind,),
                )
            if name in Registrable._registry[base]:
                owner = _describe_owner(base, name)
            elif (base, name) in taken:
                owner = f"the same {info.label} as {_class_path(taken[(base, name)])}"
            else:
                owner = None
            if owner:
                raise PluginError(
                    f"{singular} name {name!r} is offered by {info.label} as {_class_path(cls)}, "
                    f"but is already taken by {owner}; "
                    "uninstall one of the two distributions (or have one rename its component)",
                    (kind,),
                )
            taken[(base, name)] = cls
            additions.append((base, kind, name, cls))
    return additions


def _describe_owner(base: type, name: str) -> str:
    """Who registered `name` for `base`: a plugin, the built-ins, or some other code."""
    existing = Registrable._registry[base][name][0]
    if (base, name) in _origins and _origins[(base, name)][1] is existing:
        return f"{_origins[(base, name)][0].label} as {_class_path(existing)}"
    if str(existing.__module__).split(".")[0] in ("srcframework", "allennlp", "allennlp_models"):
        return f"built-in {_class_path(existing)}"
    return f"{_class_path(existing)} (registered outside the plugin manager)"


def _fail(group: str, key: tuple, info: PluginInfo, stage: str, err: Exception) -> None:
    error = f"{type(err).__name__}: {err}"
    what = "refused" if stage == "refused" else f"{stage} failed"
    logger.error("srcframework %s was skipped: %s: %s", info.label, what, error)
    logger.debug("Traceback of the failure of %s", info.label, exc_info=err)
    _failed[group][key] = PluginFailure(info.name, info.value, info.distribution, info.version, stage, error)


def _report(group: str) -> PluginReport:
    plugins = [copy.deepcopy(info) for _, info in sorted(_loaded.get(group, {}).items(), key=_sort_key)]
    failures = [copy.deepcopy(failure) for _, failure in sorted(_failed.get(group, {}).items(), key=_sort_key)]
    return PluginReport(group, plugins, failures)


def _sort_key(item: tuple) -> tuple:
    return tuple(part or "" for part in item[0])
