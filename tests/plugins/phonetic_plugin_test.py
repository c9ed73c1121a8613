"""The example plugin plugins/srcframework-phonetic, installed with a plain `pip install` (as
`make install` does), is found and used like a built-in noise source."""
from importlib import metadata

import pytest

from srcframework.noise.noise_source import NoiseSource
from srcframework.plugins.manager import load_plugins


def test_phonetic_plugin_is_installed_and_noises_questions():
    try:
        version = metadata.version("srcframework-phonetic")
    except metadata.PackageNotFoundError:
        pytest.fail(
            "the example plugin srcframework-phonetic is not installed: run `make install` "
            "(it does `pip install plugins/srcframework-phonetic`)"
        )
    report = load_plugins()
    plugin = next((p for p in report.plugins if p.distribution == "srcframework-phonetic"), None)
    assert plugin is not None, f"srcframework-phonetic {version} is installed but did not load: {report.failures}"
    assert (plugin.name, plugin.version, plugin.added) == ("phonetic", version, {"noise_sources": ["phonetic"]})

    source = NoiseSource.by_name("phonetic")(word_probability=1.0)
    question = "Where is their house?"
    noised = source.noise([question], seed=0)[0]
    assert noised == source.noise([question], seed=0)[0]
    words = noised.split()
    assert len(words) == 4 and words[2] in ("there", "they're") and noised.endswith("?")
    assert NoiseSource.by_name("phonetic")(word_probability=0.0).noise([question]) == [question]
