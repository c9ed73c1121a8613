"""The plugin manager against fake installed distributions: a `NAME-VERSION.dist-info` folder
(METADATA, entry_points.txt) and a module, in a folder put on sys.path, which is all that
`importlib.metadata` needs to find an entry point."""
import importlib
import logging
import os
import sys
import textwrap

import pytest
from allennlp.common import Registrable
from allennlp.data import DatasetReader

from srcframework.noise.noise_source import NoiseSource
from srcframework.plugins.manager import (
    PluginError,
    PluginTypeError,
    load_plugins,
    unload_plugins,
)

HEADER = """\
from allennlp.data import DatasetReader
from srcframework.noise.noise_source import NoiseSource
from srcframework.plugins import hookimpl
"""

SHOUT = HEADER + """
class Shout(NoiseSource):
    def noise(self, questions, seed=0, ids=None):
        return [q.upper() for q in questions]

class Lines(DatasetReader):
    pass

@hookimpl
def srcframework_noise_sources():
    return {"fake_shout": Shout}

@hookimpl
def srcframework_dataset_readers():
    return {"fake_lines": Lines}
"""


def offering(kind: str, name: str, base: str = "NoiseSource") -> str:
    """A plugin module whose `srcframework_<kind>` hook offers `{name: Echo}`, Echo a `base`."""
    return HEADER + f"""
class Echo({base}):
    pass

@hookimpl
def srcframework_{kind}():
    return {{{name!r}: Echo}}
"""


@pytest.fixture
def site(tmp_path):
    """A folder on sys.path for fake distributions. The plugins loaded before the test are
    unloaded, and reloaded afterwards without the fakes, whose registry entries go with them."""
    unload_plugins()
    folder = tmp_path / "site"
    folder.mkdir()
    sys.path.insert(0, str(folder))
    importlib.invalidate_caches()
    yield folder
    sys.path.remove(str(folder))
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(str(folder)):
            del sys.modules[name]
    unload_plugins()
    importlib.invalidate_caches()
    load_plugins()


def install(site, distribution: str, source: str, entry_point: str = None, version: str = "0.1", target: str = None):
    """Writes a fake distribution whose `srcframework` entry point names the module `source`."""
    module = distribution.replace("-", "_")
    info = site / f"{module}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[srcframework]\n{entry_point or module} = {target or module}\n")
    (site / f"{module}.py").write_text(textwrap.dedent(source))
    importlib.invalidate_caches()


def clashing_site_env(tmp_path) -> dict:
    """A folder `site` in `tmp_path` holding two distributions that both offer the noise source
    `fake_echo`, and the environment of a process that finds them (for `allennlp` run as a process)."""
    folder = tmp_path / "site"
    folder.mkdir()
    install(folder, "fake-echo-a", offering("noise_sources", "fake_echo"))
    install(folder, "fake-echo-b", offering("noise_sources", "fake_echo"))
    env = dict(os.environ, PYTHONPATH=str(folder), OMP_NUM_THREADS="1")
    env.pop("SRCFRAMEWORK_DEBUG", None)
    return env


def by_name(report):
    return {plugin.name: plugin for plugin in report.plugins}


def test_discovers_and_registers(site):
    install(site, "fake-shout", SHOUT, entry_point="shout")
    report = load_plugins()
    plugin = by_name(report)["shout"]
    assert (plugin.distribution, plugin.version, plugin.value) == ("fake-shout", "0.1", "fake_shout")
    assert plugin.added == {"dataset_readers": ["fake_lines"], "noise_sources": ["fake_shout"]}
    assert next(row for row in report.to_dict()["plugins"] if row["name"] == "shout")["added"] == plugin.added
    source = NoiseSource.by_name("fake_shout")()
    assert source.noise(["who?"]) == ["WHO?"]
    assert DatasetReader.by_name("fake_lines").__module__ == "fake_shout"
    assert not report.failures


def test_clash_with_a_built_in(site):
    install(site, "fake-squad", offering("dataset_readers", "squad_v1", base="DatasetReader"))
    with pytest.raises(PluginError) as error:
        load_plugins()
    message = str(error.value)
    assert "'squad_v1'" in message
    assert "fake-squad 0.1" in message and "fake_squad.Echo" in message
    assert "built-in srcframework.data.dataset_readers.squad.SquadReader" in message
    assert DatasetReader.by_name("squad_v1").__name__ == "SquadReader"


def test_clash_between_two_plugins(site):
    install(site, "fake-echo-a", offering("noise_sources", "fake_echo"))
    install(site, "fake-echo-b", offering("noise_sources", "fake_echo"))
    with pytest.raises(PluginError) as error:
        load_plugins()
    message = str(error.value)
    assert "fake-echo-a 0.1" in message and "fake_echo_a.Echo" in message
    assert "fake-echo-b 0.1" in message and "fake_echo_b.Echo" in message
    assert NoiseSource.by_name("fake_echo").__module__ == "fake_echo_a"  # the first one stays


def test_broken_plugins_are_logged_and_skipped(site, caplog):
    install(site, "fake-good", offering("noise_sources", "fake_good"))
    install(site, "fake-import", "import no_such_module_for_srcframework_tests\n")
    raising = HEADER + "@hookimpl\ndef srcframework_span_heads():\n    raise RuntimeError('hook boom')\n"
    install(site, "fake-hook", raising)
    install(site, "fake-missing", "", target="not_installed_anywhere")
    install(site, "fake-typo", HEADER + "@hookimpl\ndef srcframework_noise_source():\n    return {}\n")
    with caplog.at_level(logging.ERROR, logger="srcframework.plugins.manager"):
        report = load_plugins()
    assert "fake_good" in by_name(report) and NoiseSource.by_name("fake_good").__module__ == "fake_good"
    failures = {failure.name: failure for failure in report.failures}
    assert set(failures) >= {"fake_import", "fake_hook", "fake_missing", "fake_typo"}
    assert failures["fake_import"].stage == "import"
    assert "no_such_module_for_srcframework_tests" in failures["fake_import"].error
    assert failures["fake_hook"].stage == "hook srcframework_span_heads"
    assert failures["fake_hook"].error == "RuntimeError: hook boom"
    assert failures["fake_missing"].distribution == "fake-missing"
    assert failures["fake_typo"].stage == "register" and "srcframework_noise_source" in failures["fake_typo"].error
    logged = "\n".join(record.getMessage() for record in caplog.records if record.levelno == logging.ERROR)
    for name, text in [("fake_import", "no_such_module_for_srcframework_tests"), ("fake_hook", "hook boom")]:
        assert f"plugin {name!r}" in logged and text in logged
    assert not any(failure.name == "fake_good" for failure in report.failures)


def test_class_of_the_wrong_base(site):
    install(site, "fake-wrong", offering("noise_sources", "fake_wrong", base="DatasetReader"))
    with pytest.raises(TypeError) as error:
        load_plugins()
    assert isinstance(error.value, PluginTypeError)
    assert "fake_wrong.Echo is not a subclass of srcframework.data.noise_source.NoiseSource" in str(error.value)
    assert "fake-wrong 0.1" in str(error.value)
    assert "fake_wrong" not in Registrable._registry[NoiseSource]


def test_hook_returning_no_dict(site):
    install(site, "fake-list", HEADER + "@hookimpl\ndef srcframework_translators():\n    return ['x']\n")
    with pytest.raises(PluginTypeError, match="srcframework_translators returned list"):
        load_plugins()


def test_idempotent(site, caplog):
    install(site, "fake-shout", SHOUT)
    install(site, "fake-import", "import no_such_module_for_srcframework_tests\n")
    with caplog.at_level(logging.ERROR, logger="srcframework.plugins.manager"):
        first = load_plugins()
        second = load_plugins()
    assert first == second
    assert len([r for r in caplog.records if "fake_import" in r.getMessage()]) == 1  # failures not retried
    registered = NoiseSource.by_name("fake_shout")
    install(site, "fake-later", offering("noise_sources", "fake_later"))
    third = load_plugins()  # picks up what was installed since, and only that
    assert NoiseSource.by_name("fake_shout") is registered
    assert by_name(third)["fake_later"].added == {"noise_sources": ["fake_later"]}
    assert by_name(third)["fake_shout"] == by_name(first)["fake_shout"]


def test_unload_removes_what_plugins_registered(site):
    install(site, "fake-shout", SHOUT)
    load_plugins()
    unload_plugins()
    assert "fake_shout" not in Registrable._registry[NoiseSource]
    assert "fake_lines" not in Registrable._registry[DatasetReader]
    assert "squad_v1" in Registrable._registry[DatasetReader]
    assert load_plugins().plugins  # and loading again works
    assert NoiseSource.by_name("fake_shout")().noise(["a"]) == ["A"]


def test_not_strict_reports_a_clash_and_strict_still_refuses(site):
    install(site, "fake-echo-a", offering("noise_sources", "fake_echo"))
    install(site, "fake-echo-b", offering("noise_sources", "fake_echo"))
    report = load_plugins(strict=False)
    assert by_name(report)["fake_echo_a"].added == {"noise_sources": ["fake_echo"]}
    refused = [failure for failure in report.failures if failure.stage == "refused"]
    assert [failure.name for failure in refused] == ["fake_echo_b"]
    assert "fake_echo_a.Echo" in refused[0].error and "fake_echo_b.Echo" in refused[0].error
    assert NoiseSource.by_name("fake_echo").__module__ == "fake_echo_a"
    with pytest.raises(PluginError, match="fake_echo_b.Echo"):  # a refusal is not forgotten
        load_plugins()
