"""
Named noise presets: Jsonnet files in `srcframework/noise/presets/`, each a noise config under the
name of its file (`asr-fast-3voices.jsonnet` is `asr-fast-3voices`).

A preset is used wherever a noise config is taken: `allennlp noise ... --noise NAME` (a preset
name wins over a registered type of the same name; `keyboard` and `misspelling` are both, with the
same config), `{"type": "preset", "name": NAME}` in a config or a study, or `import` of its file in
Jsonnet. `allennlp list-noise` lists them with their resolved configs.
"""
import os
import re
from typing import List, Union

from allennlp.common import Params

from srcframework.common.errors import InputError, InputFileNotFound, did_you_mean
from srcframework.noise.noise_source import NoiseSource

PRESETS_FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "presets")
SUFFIX = ".jsonnet"


def preset_names() -> List[str]:
    """The names of the presets, sorted."""
    if not os.path.isdir(PRESETS_FOLDER):
        return []
    return sorted(name[: -len(SUFFIX)] for name in os.listdir(PRESETS_FOLDER) if name.endswith(SUFFIX))


def preset_path(name: str) -> str:
    """The Jsonnet file of preset `name`; an unknown name is an `InputFileNotFound` naming the closest
    known one and listing them all."""
    path = os.path.join(PRESETS_FOLDER, f"{name}{SUFFIX}")
    if not isinstance(name, str) or "/" in name or os.sep in name or not os.path.isfile(path):
        hint = did_you_mean(name, preset_names())
        known = ", ".join(preset_names()) or "none"
        raise InputFileNotFound(f"no noise preset {name!r}; {hint + ' ' if hint else ''}presets: {known}")
    return path


def preset_config(name: str) -> dict:
    """Preset `name`'s noise config: its Jsonnet evaluated (imports resolved), as a dict."""
    config = Params.from_file(preset_path(name)).as_dict(quiet=True)
    if not isinstance(config.get("type"), str):
        raise InputError(f"noise preset {name!r} ({preset_path(name)}) does not give a noise source `type`")
    return config


def preset_description(name: str) -> str:
    """The `//` comment lines that open preset `name`'s file, joined into one paragraph."""
    lines = []
    with open(preset_path(name), encoding="utf-8") as handle:
        for line in handle:
            if not line.startswith("//"):
                break
            lines.append(line[2:].strip())
    return re.sub(r"\s+", " ", " ".join(lines)).strip()


def noise_params(noise: Union[str, dict]) -> dict:
    """
    The noise config that `noise` names: a dict is returned as it is; a string is a preset's name
    (its config) or a registered `NoiseSource` type (`{"type": noise}`). Anything else is an
    `InputError` that names the closest known name and lists the presets and types.
    """
    if isinstance(noise, dict):
        return noise
    if not isinstance(noise, str) or not noise.strip():
        raise InputError(f"a noise is a preset name, a registered type or a config, not {noise!r}")
    name = noise.strip()
    if name in preset_names():
        return preset_config(name)
    if name in NoiseSource.list_available():
        return {"type": name}
    types = sorted(NoiseSource.list_available())
    hint = did_you_mean(name, preset_names() + types)
    raise InputError(
        f"no noise preset or noise source type {name!r}; {hint + ' ' if hint else ''}"
        f"presets: {', '.join(preset_names())}; types: {', '.join(types)}"
    )


@NoiseSource.register("preset", constructor="from_preset")
class NoisePreset(NoiseSource):
    """
    A named noise preset in a config: `{"type": "preset", "name": "asr-fast-3voices"}` builds the
    noise source the preset's file describes (so `describe()` gives that source's config).

    # Parameters

    name : `str`
        A preset of `srcframework/noise/presets/` (`allennlp list-noise` lists them).
    """

    @classmethod
    def from_preset(cls, name: str) -> NoiseSource:
        config = preset_config(name)
        if config["type"] == "preset":
            raise InputError(f"noise preset {name!r} names another preset; give that one's config instead")
        return NoiseSource.from_params(Params(config))

