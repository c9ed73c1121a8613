"""Without the Debian engines (flite, espeak-ng, Festival, apertium, SoX) or the pocketsphinx
package, whatever needs one stops with one line naming the engine and how to install it; everything
else works. None of these tests needs an engine: they hide them (an empty PATH, an unimportable
package)."""
import json
import sys

import pytest
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError

from srcframework.commands import cli_errors
from srcframework.data.audio_perturbation import AudioPerturbation
from srcframework.noise.noise_source import NoiseSource
from srcframework.speech.engines import EngineNotFound, SpeechRecognizer, SpeechSynthesizer, Translator
from tests.conftest import FIXTURES, allennlp_process, run_allennlp

MISSING = [
    (SpeechSynthesizer, {"type": "flite"}, "flite is not installed: apt-get update && apt-get install -y flite"),
    (SpeechSynthesizer, {"type": "espeak_ng"},
     "espeak-ng is not installed: apt-get update && apt-get install -y espeak-ng"),
    (SpeechSynthesizer, {"type": "festival"}, "festival is not installed: apt-get update && apt-get install -y "
     "festival festvox-kallpc16k festvox-kdlpc16k festvox-us-slt-hts"),
    (AudioPerturbation, {}, "sox is not installed: apt-get update && apt-get install -y sox"),
    (Translator, {"type": "apertium", "pair": "spa-eng"},
     "apertium or its spa-eng pair is not installed: apt-get update && apt-get install -y apertium apertium-eng-spa"),
    (NoiseSource, {"type": "asr"}, "flite is not installed: apt-get update && apt-get install -y flite"),
    (NoiseSource, {"type": "back_translation"},
     "apertium or its eng-spa pair is not installed: apt-get update && apt-get install -y apertium apertium-eng-spa"),
]


@pytest.fixture
def no_programs(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv(cli_errors.DEBUG_ENV, raising=False)


@pytest.mark.parametrize("base, params, message", MISSING, ids=[str(p) for _, p, _ in MISSING])
def test_a_missing_program_is_one_line_with_its_package(no_programs, base, params, message, capsys):
    with pytest.raises(ConfigurationError) as caught:
        base.from_params(Params(dict(params)))
    assert str(caught.value) == message
    cli_errors.excepthook(caught.type, caught.value, caught.value.__traceback__)
    assert capsys.readouterr().err == f"error: {message}\n"


def test_a_missing_pocketsphinx_is_one_line_with_its_package(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pocketsphinx", None)  # import pocketsphinx now raises ImportError
    monkeypatch.delenv(cli_errors.DEBUG_ENV, raising=False)
    with pytest.raises(EngineNotFound) as caught:
        SpeechRecognizer.from_params(Params({"type": "pocketsphinx"}))
    cli_errors.excepthook(caught.type, caught.value, caught.value.__traceback__)
    assert capsys.readouterr().err == "error: pocketsphinx is not installed: pip install 'pocketsphinx>=5'\n"


def test_the_text_noise_sources_need_no_engine(no_programs):
    for params in ({"type": "keyboard"}, {"type": "misspelling"}, {"type": "blank"}):
        assert NoiseSource.from_params(Params(params)).noise(["Who built the bridge?"], seed=1)


@pytest.mark.slow
def test_the_command_line_without_engines(tmp_path):
    """`allennlp` starts (a process of its own), lists the noise (naming what cannot be built
    here) and noises with a text source; a source that needs a missing engine stops with one line."""
    listing = allennlp_process("list-noise", "--json", env={"PATH": str(tmp_path)})
    assert listing.returncode == 0, listing.stderr[-2000:]
    presets = json.loads(listing.stdout)["presets"]
    assert "flite is not installed" in presets["asr-fast-3voices"]["error"]
    assert "resolved" in presets["keyboard"]
    done = run_allennlp("noise", str(FIXTURES / "squad_tiny.json"), str(tmp_path / "asr.json"), "--noise", "asr",
                        "--no-progress", env={"PATH": str(tmp_path)})
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last == "error: flite is not installed: apt-get update && apt-get install -y flite"
    assert "Traceback" not in done.stderr and not (tmp_path / "asr.json").exists()
