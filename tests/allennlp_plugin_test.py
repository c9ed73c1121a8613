"""`import srcframework` only registers components; `srcframework.allennlp_plugin`, the module
the allennlp command line imports, adds the patches, defaults, handler and plugins."""
import functools
import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

PROBE = """
import json, os, sys
before_env = dict(os.environ)
before_hook = sys.excepthook
import torch
before_plateau = torch.optim.lr_scheduler.ReduceLROnPlateau
import allennlp.commands.evaluate as evaluate
before_evaluate = evaluate.evaluate_from_archive
import {module}
from allennlp.data import DatasetReader
from srcframework.plugins import manager
from srcframework import compat
found = {{
    "registered": "squad_v1" in DatasetReader.list_available(),
    "new_env": sorted(set(os.environ) - set(before_env)),
    "hook_changed": sys.excepthook is not before_hook,
    "patched": bool(compat.APPLIED),
    "evaluate_wrapped": evaluate.evaluate_from_archive is not before_evaluate,
    "plugins_loaded": bool(manager._loaded),
}}
# what the import built before any use: the WER normaliser, then made by its first use
from srcframework.metrics import text_noise
made_at_import = text_noise.normalizer.cache_info().currsize
found["normaliser"] = [made_at_import, text_noise.normalize_for_wer("Tesla's  X.25?"),
                       text_noise.normalizer.cache_info().currsize]
print(json.dumps(found))
"""


@functools.lru_cache(maxsize=None)  # one process a module, for the tests that read it
def probe(module):
    env = {k: v for k, v in os.environ.items() if k not in ("SHARED_DATA", "SQUAD_TRAIN", "SEED", "MINILM", "ONEDNN_PRIMITIVE_CACHE_CAPACITY")}
    done = subprocess.run([sys.executable, "-c", PROBE.format(module=module)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_importing_srcframework_only_registers():
    found = dict(probe("srcframework"))
    del found["normaliser"]
    assert found == {"registered": True, "new_env": [], "hook_changed": False, "patched": False,
                     "evaluate_wrapped": False, "plugins_loaded": False}


@pytest.mark.slow
def test_the_allennlp_plugin_module_adds_the_rest():
    found = probe("srcframework.allennlp_plugin")
    assert found["registered"] and found["patched"] and found["evaluate_wrapped"] and found["plugins_loaded"]
    assert {"SHARED_DATA", "SQUAD_TRAIN", "SEED", "ONEDNN_PRIMITIVE_CACHE_CAPACITY"} <= set(found["new_env"])
    assert not found["hook_changed"]  # the one-line handler is for the allennlp command line only


@pytest.mark.slow
def test_loading_the_plugin_builds_nothing_that_no_command_asked_for():
    """Every `allennlp` process imports the plugin: the WER normaliser (jiwer's RemovePunctuation
    walks every Unicode code point when it is made) is made on first use, not at import."""
    assert probe("srcframework.allennlp_plugin")["normaliser"] == [0, "teslas x25", 1]
