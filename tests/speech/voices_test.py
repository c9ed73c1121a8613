import re

import numpy
import pytest

from srcframework.data.squad_src_layout import DEFAULT_FILE_PATTERN, SQUAD_SRC_SPEAKERS, parse_wav_name
from srcframework.common.errors import InputError
from srcframework.speech.engines import EngineNotFound
from srcframework.speech.espeak_ng import EspeakNgSynthesizer
from srcframework.speech.flite import FliteSynthesizer, flite_voices
from srcframework.speech.voices import ENGINES, DEFAULT_VOICES, VOICES, get_voice, parse_voices


def test_catalogue_speakers_are_distinct_and_match_the_layout():
    speakers = [voice.speaker for voice in VOICES.values()]
    assert len(set(speakers)) == len(speakers)
    for voice in VOICES.values():
        assert parse_wav_name(f"DEV000001_{voice.speaker}.wav", DEFAULT_FILE_PATTERN) == ("DEV000001", voice.speaker)
        assert voice.speaker not in SQUAD_SRC_SPEAKERS
        assert voice.gender in {"M", "F"}
        assert voice.name == f"{voice.engine}:{voice.engine_voice}"
    assert get_voice("flite:awb").country == "UK"
    assert get_voice("flite:slt").gender == "F"
    assert get_voice("espeak_ng:en-029").country == "Caribbean"
    assert {v.country for v in VOICES.values()} >= {"US", "UK", "Caribbean"}
    assert all(name in VOICES for name in DEFAULT_VOICES)


def test_catalogue_flite_voices_exist_in_this_flite():
    installed = set(flite_voices())
    assert {v.engine_voice for v in VOICES.values() if v.engine == "flite"} <= installed


@pytest.mark.parametrize("name", sorted(VOICES))
def test_every_voice_speaks(name):
    voice = get_voice(name)
    synthesizer = voice.build()
    assert isinstance(synthesizer, ENGINES[voice.engine])
    waveform, rate = synthesizer.synthesize("Where does the ferry go?")
    assert rate in {8000, 16000, 22050, 24000, 32000}
    assert waveform.dtype == numpy.float32 and 0.5 < waveform.size / rate < 5.0
    assert numpy.abs(waveform).max() > 0.05


def test_every_voice_sounds_different():
    """No two catalogue voices give the same waveform (an engine that ignores a voice or variant
    name silently falls back to another voice)."""
    waves = {}
    for name in sorted(VOICES):
        waveform, rate = get_voice(name).build().synthesize("Who dredged the harbour?")
        waves[name] = (rate, waveform.tobytes())
    assert len(set(waves.values())) == len(waves)


def test_unknown_voice_lists_the_known_ones():
    with pytest.raises(ValueError, match=re.escape("flite:kal16")) as error:
        get_voice("flite:nobody")
    assert "unknown voice 'flite:nobody'" in str(error.value)
    with pytest.raises(ValueError, match="known voices"):
        parse_voices("flite:kal16,espeak_ng:xx")


def test_parse_voices_from_string_and_list():
    assert [v.speaker for v in parse_voices("flite:kal16, flite:awb")] == ["SPK101", "SPK103"]
    assert [v.name for v in parse_voices(["espeak_ng:en-gb"])] == ["espeak_ng:en-gb"]
    with pytest.raises(ValueError, match="listed twice"):
        parse_voices("flite:awb,flite:awb")
    with pytest.raises(ValueError, match="no voices"):
        parse_voices(" , ")


def test_missing_engine_program_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: neither flite nor espeak-ng is found
    with pytest.raises(EngineNotFound, match="apt-get install -y flite"):
        get_voice("flite:kal16").build()
    with pytest.raises(EngineNotFound, match="apt-get install -y espeak-ng"):
        get_voice("espeak_ng:en-gb").build()


def test_the_voice_split_holds_out_voices_of_two_engines_one_unused_in_training():
    from srcframework.speech.voices import HELD_OUT_VOICES, TRAINING_VOICES, VOICES

    assert set(TRAINING_VOICES) <= set(VOICES) and set(HELD_OUT_VOICES) <= set(VOICES)
    assert not set(TRAINING_VOICES) & set(HELD_OUT_VOICES)
    training_engines = {VOICES[v].engine for v in TRAINING_VOICES}
    held_out_engines = {VOICES[v].engine for v in HELD_OUT_VOICES}
    assert len(held_out_engines) >= 2 and held_out_engines - training_engines
    assert len({VOICES[v].speaker for v in VOICES}) == len(VOICES)  # one speaker id a voice


def test_the_training_voices_come_in_three_mixed_groups_and_sets_expand():
    from srcframework.speech.voices import TRAINING_VOICE_GROUPS, TRAINING_VOICES, VOICES, parse_voices

    assert sorted(v for group in TRAINING_VOICE_GROUPS for v in group) == sorted(TRAINING_VOICES)
    for group in TRAINING_VOICE_GROUPS:  # each group mixes engines and genders
        assert len({VOICES[v].engine for v in group}) > 1 and len({VOICES[v].gender for v in group}) > 1
    assert [v.name for v in parse_voices("training-2")] == TRAINING_VOICE_GROUPS[1]
    assert [v.name for v in parse_voices("held-out,flite:kal16")][-1] == "flite:kal16"
    with pytest.raises(InputError, match="listed twice"):
        parse_voices("training,flite:awb")
    with pytest.raises(InputError, match="voice sets: default, training, held-out"):
        parse_voices("trainig")


def test_the_development_voices_and_the_extra_training_voices_touch_neither_training_nor_test_voices():
    from srcframework.speech.voices import (
        DEVELOPMENT_VOICES, EXTRA_TRAINING_VOICES, HELD_OUT_VOICES, TRAINING_VOICES, VOICES, parse_voices)

    groups = [set(TRAINING_VOICES), set(HELD_OUT_VOICES), set(DEVELOPMENT_VOICES), set(EXTRA_TRAINING_VOICES)]
    for i, first in enumerate(groups):
        for second in groups[i + 1:]:
            assert not first & second
    assert all(name in VOICES for group in groups for name in group)
    # no development voice is a variant of a held-out voice's engine and speaker
    assert not {VOICES[v].engine for v in DEVELOPMENT_VOICES} & {VOICES[v].engine for v in HELD_OUT_VOICES if v != "flite:rms"}
    assert [v.name for v in parse_voices("development")] == DEVELOPMENT_VOICES
    speakers = [voice.speaker for voice in VOICES.values()]
    assert len(speakers) == len(set(speakers))
