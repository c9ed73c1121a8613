"""A plugin refused for a name clash stops only the commands that build components of the registry
it clashes in: `allennlp squad-eval` runs (after the one error line), `allennlp noise` stops."""
import json
import os
import subprocess
import sys

import pytest

from srcframework import allennlp_plugin
from srcframework.plugins.manager import PluginError, load_plugins
from tests.conftest import FIXTURES, ROOT
from tests.plugins.manager_test import install, offering, site  # noqa: F401  (site is a fixture)


def test_a_clash_is_raised_only_to_callers_of_its_registry(site):  # noqa: F811
    install(site, "fake-echo-a", offering("noise_sources", "fake_echo"))
    install(site, "fake-echo-b", offering("noise_sources", "fake_echo"))
    report = load_plugins(uses=())  # builds from no registry: runs
    assert [failure.stage for failure in report.failures] == ["refused"]
    load_plugins(uses=("speech_recognizers", "span_heads"))
    for uses in (("noise_sources",), ("translators", "noise_sources"), None):
        with pytest.raises(PluginError, match="fake_echo") as raised:
            load_plugins(uses=uses)
        assert raised.value.kinds == ("noise_sources",)


def test_which_commands_build_from_which_registries():
    assert allennlp_plugin.plugin_kinds("squad-eval") == ()
    assert "noise_sources" in allennlp_plugin.plugin_kinds("noise")
    assert allennlp_plugin.plugin_kinds("transcribe") == ("speech_recognizers",)
    for command in ("train", "evaluate", "predict", "compare", "cascade", None):
        assert allennlp_plugin.plugin_kinds(command) is None  # any registry


def test_squad_eval_runs_despite_a_noise_source_clash(tmp_path):
    folder = tmp_path / "site"
    folder.mkdir()
    install(folder, "fake-echo-a", offering("noise_sources", "fake_echo"))
    install(folder, "fake-echo-b", offering("noise_sources", "fake_echo"))
    predictions = tmp_path / "p.json"
    data = json.loads((FIXTURES / "squad_tiny.json").read_text())
    qids = [qa["id"] for article in data["data"] for paragraph in article["paragraphs"] for qa in paragraph["qas"]]
    predictions.write_text(json.dumps({qid: "1882" for qid in qids}))
    env = dict(os.environ, PYTHONPATH=str(folder), OMP_NUM_THREADS="1")
    env.pop("SRCFRAMEWORK_DEBUG", None)
    done = subprocess.run([sys.executable, "-m", "allennlp", "squad-eval", str(FIXTURES / "squad_tiny.json"),
                           str(predictions)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1])["questions"] == len(qids)
    refused = [line for line in done.stderr.splitlines() if "fake_echo" in line]
    assert len(refused) == 1 and "refused" in refused[0], done.stderr[-3000:]
