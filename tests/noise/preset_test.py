import json

import pytest
from allennlp.common import Params

from srcframework.common.errors import InputError, InputFileNotFound
from srcframework.noise.keyboard import KeyboardNoise
from srcframework.noise.mix import NoiseMix
from srcframework.noise.noise_source import NoiseSource
from srcframework.noise.preset import noise_params, preset_config, preset_description, preset_names

# the configs the robust-training recipe wrote out in full before the presets; a preset must give
# exactly these, so that a challenge set's key (made from its config) stays the same
ASR_FAST = {"type": "asr", "synthesizers": [{"type": "flite", "voice": "kal16"}, {"type": "flite", "voice": "awb"},
                                            {"type": "flite", "voice": "slt"}],
            "recognizer": {"type": "pocketsphinx", "preset": "fast"}}
ASR_RMS = {"type": "asr", "synthesizer": {"type": "flite", "voice": "rms"}, "recognizer": {"type": "pocketsphinx"}}


def test_the_presets():
    assert set(preset_names()) >= {
        "asr-fast-3voices", "asr-heldout-voice", "keyboard", "misspelling", "back-translation", "noiseqa-mix"
    }
    for name in preset_names():
        assert preset_description(name), f"{name}: its file opens with no comment"
        assert preset_config(name)["type"] in NoiseSource.list_available()


def test_presets_equal_the_configs_they_replace():
    assert preset_config("asr-fast-3voices") == ASR_FAST
    assert preset_config("asr-heldout-voice") == ASR_RMS
    # a preset named like a type gives that type's plain config, as `--noise keyboard` did
    assert preset_config("keyboard") == {"type": "keyboard"}
    assert preset_config("misspelling") == {"type": "misspelling"}
    assert json.dumps(ASR_FAST, sort_keys=True) == json.dumps(preset_config("asr-fast-3voices"), sort_keys=True)


def test_noiseqa_mix_imports_other_presets():
    config = preset_config("noiseqa-mix")
    assert config["type"] == "mix"
    assert config["sources"][1:] == [preset_config("keyboard"), preset_config("back-translation")]


def test_noise_params_resolves_names():
    assert noise_params("asr-heldout-voice") == ASR_RMS
    assert noise_params("blank") == {"type": "blank"}  # a type that is no preset
    assert noise_params({"type": "keyboard", "word_probability": 0.5}) == {"type": "keyboard", "word_probability": 0.5}
    with pytest.raises(InputError, match="no noise preset or noise source type 'keybord'; did you mean keyboard[?] "
                                         "presets: .*keyboard"):
        noise_params("keybord")
    with pytest.raises(InputFileNotFound, match="no noise preset 'noisqa-mix'; did you mean noiseqa-mix[?] presets: "):
        NoiseSource.from_params(Params({"type": "preset", "name": "noisqa-mix"}))


def test_preset_type_in_a_config_builds_the_source():
    source = NoiseSource.from_params(Params({"type": "preset", "name": "keyboard"}))
    assert isinstance(source, KeyboardNoise)
    assert source.describe() == {"type": "keyboard", "word_probability": 0.25}
    assert source.noise(["Who built the bridge?"], seed=3) == KeyboardNoise().noise(["Who built the bridge?"], seed=3)
    mix = NoiseSource.from_params(Params({"type": "mix", "sources": [{"type": "preset", "name": "keyboard"}]}))
    assert isinstance(mix, NoiseMix) and isinstance(mix.sources[0], KeyboardNoise)


def test_unknown_preset_is_one_line():
    with pytest.raises(InputFileNotFound) as caught:
        NoiseSource.from_params(Params({"type": "preset", "name": "no-such"}))
    assert str(caught.value).startswith("no noise preset 'no-such'; presets: asr-fast-3voices, ")
    assert "\n" not in str(caught.value)
    with pytest.raises(InputFileNotFound):
        preset_config("../presets/keyboard")
