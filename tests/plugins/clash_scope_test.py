"""A plugin refused for a name clash stops only the commands that build components of the registry
it clashes in: `allennlp squad-eval`, and commands that build nothing from plugins (`power`,
`snapshot`, `recipe list`, `print-results`, ...), run after the one error line; `allennlp noise`,
`train` and `recipe run` stop."""
import json
import subprocess
import sys

import pytest

from srcframework import allennlp_plugin
from srcframework.common.cli import subcommand, subcommand_action
from srcframework.plugins.manager import PluginError, load_plugins
from tests.conftest import FIXTURES, ROOT
from tests.plugins.manager_test import clashing_site_env, install, offering, site  # noqa: F401  (site is a fixture)


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


@pytest.mark.slow
def test_squad_eval_runs_despite_a_noise_source_clash(tmp_path):
    env = clashing_site_env(tmp_path)
    predictions = tmp_path / "p.json"
    data = json.loads((FIXTURES / "squad_tiny.json").read_text())
    qids = [qa["id"] for article in data["data"] for paragraph in article["paragraphs"] for qa in paragraph["qas"]]
    predictions.write_text(json.dumps({qid: "1882" for qid in qids}))
    done = subprocess.run([sys.executable, "-m", "allennlp", "squad-eval", str(FIXTURES / "squad_tiny.json"),
                           str(predictions)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1])["questions"] == len(qids)
    refused = [line for line in done.stderr.splitlines() if "fake_echo" in line]
    assert len(refused) == 1 and "refused" in refused[0], done.stderr[-3000:]


NOTHING_FROM_PLUGINS = ("power", "snapshot", "recipe list", "recipe status", "recipe snapshot", "recipe", "models",
                        "tune-ctc-decoder", "print-results", "count-instances", "diff", "cached-path", "test-install")


def kinds_of(command_line):
    """`plugin_kinds` of an `allennlp` command line, as `activate` finds them."""
    argv = ["allennlp", *command_line.split()]
    return allennlp_plugin.plugin_kinds(subcommand(argv), subcommand_action(argv))


def span_head_offering():
    """A plugin module offering the span head `fake_head` (a registry no dataset reader builds from)."""
    return "from srcframework.modules.span_heads.span_head import SpanHead\n" + offering("span_heads", "fake_head", "SpanHead")


def test_commands_that_build_nothing_from_plugins_run_despite_a_clash(site):  # noqa: F811
    install(site, "fake-span-a", span_head_offering())
    install(site, "fake-span-b", span_head_offering())
    for command in NOTHING_FROM_PLUGINS:
        report = load_plugins(uses=kinds_of(f"{command} NAME --flag"))
        assert [failure.stage for failure in report.failures] == ["refused"], command
    for command in ("recipe run NAME", "train config.json -s out", "evaluate model.tar.gz data.json", "cascade a b c"):
        with pytest.raises(PluginError, match="fake_head"):
            load_plugins(uses=kinds_of(command))


def test_count_instances_still_stops_for_a_clash_of_what_a_reader_builds(site):  # noqa: F811
    install(site, "fake-echo-a", offering("noise_sources", "fake_echo"))
    install(site, "fake-echo-b", offering("noise_sources", "fake_echo"))
    with pytest.raises(PluginError, match="fake_echo"):
        load_plugins(uses=kinds_of("count-instances config.json"))
    load_plugins(uses=kinds_of("print-results runs -k f1"))
    assert kinds_of("recipe --help") == () and kinds_of("recipe run x") is None


@pytest.mark.slow
def test_snapshot_list_runs_despite_a_clash(tmp_path):
    """A srcframework command (loaded through the plugin, unlike AllenNLP's `print-results` or
    `diff`, which load no plugins) that builds nothing from plugins runs after the one error line."""
    env = clashing_site_env(tmp_path)
    done = subprocess.run([sys.executable, "-m", "allennlp", "snapshot", "--folder", str(tmp_path / "none"), "list"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == f"no snapshots in {tmp_path / 'none'}"
    refused = [line for line in done.stderr.splitlines() if "fake_echo" in line]
    assert len(refused) == 1 and "refused" in refused[0], done.stderr[-3000:]
