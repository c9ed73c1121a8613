"""
Output rules for AllenNLP's own `evaluate` and `predict`, the same as srcframework's commands
follow: output paths are checked before any work, and a predictor's end-of-run file is written
only when the run ends without an error.

`install()` (called by `srcframework.allennlp_plugin.activate()`, so in every `allennlp` process and
in a program that runs AllenNLP's commands as library calls, which imports AllenNLP's plugins or
calls `activate()`) wraps three AllenNLP functions, once:

- `allennlp.commands.evaluate.evaluate_from_archive`: `--output-file` and
  `--predictions-output-file` (each path of a comma-separated list, unless `--auto-names` names
  them) are checked with `check_output_path` before the archive is loaded, so a missing folder is
  a one-line `ConfigurationError`, not a traceback after the whole evaluation.
- `allennlp.commands.predict._get_predictor`: the input file (a local path: one line naming it
  when it is not there, instead of a traceback after the archive is loaded), `--output-file`, and
  the `official_predictions_file` of `--predictor-args`, are checked before the archive is loaded.
- `allennlp.commands.predict._PredictManager.run`: when the run returns, the predictor's
  `write_official_predictions()` is called (where it has one); when it raises, its
  `discard_official_predictions()`, so that no partial file is ever written, whether the failure
  ends the process or a library caller catches it and goes on.
"""
import functools
import inspect
import json
import os
from typing import List, Optional

from srcframework.common.errors import InputFileNotFound
from srcframework.common.paths import check_output_path

_INSTALLED = False


def output_paths(value: Optional[str], auto_names: Optional[str], named_by: tuple) -> List[str]:
    """The paths of a comma-separated `--output-file` value that `evaluate` will write, none where
    `auto_names` (one of `named_by`) makes its own names."""
    if not value or auto_names in named_by:
        return []
    return [path for path in str(value).split(",") if path]


def check_evaluate_outputs(arguments: inspect.BoundArguments) -> None:
    """Checks the metrics and predictions output files of an `evaluate_from_archive` call."""
    values = arguments.arguments
    auto_names = values.get("auto_names")
    for path in output_paths(values.get("metrics_output_file"), auto_names, ("METRICS", "ALL")):
        check_output_path(path, "evaluate --output-file")
    for path in output_paths(values.get("predictions_output_file"), auto_names, ("PREDS", "ALL")):
        check_output_path(path, "evaluate --predictions-output-file")


def check_predict_outputs(args) -> None:
    """Checks `predict`'s input file (a local path other than `-`, stdin, must exist), its
    `--output-file` and the predictor's `official_predictions_file`."""
    source = getattr(args, "input_file", None)
    if isinstance(source, str) and source != "-" and "://" not in source and not os.path.exists(source):
        raise InputFileNotFound(f"predict: the input file {source} is not there")
    if getattr(args, "output_file", None):
        check_output_path(args.output_file, "predict --output-file")
    predictor_args = (getattr(args, "predictor_args", "") or "").strip()
    try:
        extra = json.loads(predictor_args) if predictor_args else {}
    except json.JSONDecodeError:
        return  # AllenNLP reports it
    if isinstance(extra, dict) and extra.get("official_predictions_file"):
        check_output_path(str(extra["official_predictions_file"]), "official predictions file")


def install() -> bool:
    """Wraps the three functions (see the module docstring) once; returns whether it did now."""
    global _INSTALLED
    if _INSTALLED:
        return False
    from allennlp.commands import evaluate as evaluate_module
    from allennlp.commands import predict as predict_module

    evaluate = evaluate_module.evaluate_from_archive
    signature = inspect.signature(evaluate)

    @functools.wraps(evaluate)
    def evaluate_from_archive(*args, **kwargs):
        check_evaluate_outputs(signature.bind(*args, **kwargs))
        return evaluate(*args, **kwargs)

    evaluate_module.evaluate_from_archive = evaluate_from_archive

    get_predictor = predict_module._get_predictor

    @functools.wraps(get_predictor)
    def _get_predictor(args):
        check_predict_outputs(args)
        return get_predictor(args)

    predict_module._get_predictor = _get_predictor

    manager = predict_module._PredictManager
    run = manager.run

    @functools.wraps(run)
    def run_then_finish(self) -> None:
        predictor = self._predictor
        try:
            run(self)
        except BaseException:
            discard = getattr(predictor, "discard_official_predictions", None)
            if discard is not None:
                discard()
            raise
        finish = getattr(predictor, "write_official_predictions", None)
        if finish is not None:
            finish()

    manager.run = run_then_finish
    _INSTALLED = True
    return True
