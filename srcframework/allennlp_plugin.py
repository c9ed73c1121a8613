"""The module that AllenNLP's plugin mechanism imports (`.allennlp_plugins`, `~/.allennlp/plugins`
or `--include-package srcframework.allennlp_plugin`): it turns an `allennlp` process into an
srcframework one. `import srcframework` alone only registers components; this module also

- adapts AllenNLP 2.10.1 to today's torch and extracts archives safely (`srcframework.compat`);
- sets the configs' external variables that are unset to their defaults (`config_defaults`);
- caps oneDNN's primitive cache, unless the environment sets it, so that a training's memory does
  not grow with every new sequence length (`common.onednn`);
- in the `allennlp` command line, installs the one-line error handler (`commands.cli_errors`);
- makes `evaluate` and `predict` check their output paths before any work
  (`commands.allennlp_outputs`);
- makes `train` end a stopped training with one line (where it stopped, how to resume), and leave
  no serialization folder when it fails before its first epoch (`commands.allennlp_train`);
- loads third-party plugins (the `srcframework` entry point); a plugin that cannot be used as
  installed (a name clash) stops the commands that build components of the registry it clashes in
  (`PLUGIN_KINDS`; `train`, `evaluate`, `predict`, `recipe run` and any other command not listed
  build from every registry), while the others, and every command that builds nothing from plugins
  (`power`, `snapshot`, `recipe list`, `print-results`, `diff`, ...), run after its error line;
  `list-plugins` reports it;
- has every worker process (`common.worker_pool`) apply the patches and load the plugins
  too.

A library user who wants the same in a Python program calls `activate()`.

Run from the folder that holds a clone, `import srcframework` can find the clone's folder instead
of the package: the first import of `srcframework.common` (by `compat`, below) then stops the
`allennlp` command line with one line saying so (`common.shadowing`), before AllenNLP's errors
about unregistered names.
"""
import srcframework  # noqa: F401  (registers the components)
from srcframework import compat, config_defaults
from srcframework.commands import allennlp_outputs, allennlp_train, cli_errors
from srcframework.common.cli import subcommand_action
from srcframework.common.onednn import cap_primitive_cache
from srcframework.common.worker_pool import on_worker_start
from srcframework.plugins.manager import load_plugins

_ACTIVE = False

NOISE_KINDS = ("noise_sources", "speech_synthesizers", "speech_recognizers", "translators")
READER_KINDS = ("dataset_readers", "field_encoders") + NOISE_KINDS  # what a config's dataset reader may build
# subcommand (or "subcommand action") -> the plugin registries (kinds of `plugins.manager.HOOKS`) it
# builds components from, () for none; None, like a subcommand not listed (train, evaluate, predict,
# compare, cascade, find-lr, ...), for any
PLUGIN_KINDS = {
    "squad-eval": (),
    "noise-stats": (),
    "accent-report": (),
    "training-curve": (),
    "word-lm": (),
    "models": (),
    "power": (),
    "snapshot": (),
    "recipe": (),  # list, status and snapshot read files
    "recipe run": None,  # trains and runs jobs in this process
    "tune-ctc-decoder": (),
    "print-results": (),
    "diff": (),
    "cached-path": (),
    "test-install": (),
    "count-instances": READER_KINDS,
    "build-vocab": READER_KINDS,
    "noise": NOISE_KINDS,
    "list-noise": NOISE_KINDS + ("field_encoders",),
    "synthesize-speech": ("speech_synthesizers",),
    "transcribe": ("speech_recognizers",),
}


def plugin_kinds(subcommand, action=None):
    """The registries `subcommand` (with its `action`, where `PLUGIN_KINDS` lists that pair)
    builds from, None for any (and outside the command line)."""
    if not subcommand:
        return None
    for key in (f"{subcommand} {action}", subcommand):
        if key in PLUGIN_KINDS:
            return PLUGIN_KINDS[key]
    return None


def activate() -> None:
    """Everything above, once per process."""
    global _ACTIVE
    if _ACTIVE:
        return
    cli_errors.install()
    cap_primitive_cache()
    compat.apply()
    config_defaults.export()
    allennlp_outputs.install()
    allennlp_train.install()
    # workers (noise, synthesis, transcription, study pairs) start from a fork server that only
    # imported modules: they redo these
    on_worker_start(compat.apply)
    on_worker_start(load_plugins)
    _ACTIVE = True
    command = cli_errors.running_subcommand()
    action = subcommand_action() if command else None
    load_plugins(strict=command != "list-plugins", uses=plugin_kinds(command, action))


activate()
