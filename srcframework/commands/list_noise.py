"""`allennlp list-noise [NAME] [--json]`: the noise presets with their configs, and the registered
noise sources, question encoders, recognizers, CTC decoders, synthesizers and translators."""
import argparse
import inspect
import json
from typing import Dict, List, Optional, Tuple

from allennlp.commands import Subcommand
from allennlp.common import Params, Registrable

from srcframework.common.logs import params_not_logged
from srcframework.modules.field_encoders.field_encoder import FieldEncoder
from srcframework.noise.noise_source import NoiseSource
from srcframework.noise.preset import PRESETS_FOLDER, preset_config, preset_description, preset_names, preset_path
from srcframework.speech.ctc_decoder import CtcDecoder
from srcframework.speech.engines import SpeechRecognizer, SpeechSynthesizer, Translator

# (what they are called, their base class), in the order they are listed
KINDS: List[Tuple[str, type]] = [
    ("noise sources", NoiseSource),
    ("question and context encoders", FieldEncoder),
    ("speech recognizers", SpeechRecognizer),
    ("CTC decoders", CtcDecoder),
    ("speech synthesizers", SpeechSynthesizer),
    ("translators", Translator),
]


@Subcommand.register("list-noise")
class ListNoise(Subcommand):
    def add_subparser(self, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = (
            "List the noise presets (usable as `--noise NAME`, or as {\"type\": \"preset\", \"name\": NAME} in a "
            "config) with their configs and resolved configs, then the registered noise sources, encoders, "
            "speech recognizers, CTC decoders, synthesizers and translators."
        )
        subparser = parser.add_parser(
            self.name, description=description, help="List the noise presets and noise sources."
        )
        subparser.add_argument("name", nargs="?", help="show only this preset")
        subparser.add_argument("--json", action="store_true", help="print the listing as JSON")
        subparser.set_defaults(func=run)
        return subparser


def describe_preset(name: str) -> dict:
    """A preset's description, file, config and resolved config (the source's `describe()`: defaults
    filled in), or, where the source cannot be built here (an engine not installed), `error`."""
    config = preset_config(name)
    entry = {"description": preset_description(name), "file": preset_path(name), "config": config}
    try:
        with params_not_logged():  # built only to be described: its parameters would bury the listing
            entry["resolved"] = NoiseSource.from_params(Params(json.loads(json.dumps(config)))).describe()
    except Exception as err:  # noqa: BLE001 - any engine's failure is reported, not raised
        entry["error"] = f"{type(err).__name__}: {' '.join(str(err).split())}"
    return entry


def first_sentence(doc: str) -> str:
    """The first sentence of a docstring's first paragraph, on one line."""
    paragraph = " ".join(doc.split("\n\n")[0].split())
    end = paragraph.find(". ")
    return paragraph if end < 0 else paragraph[: end + 1]


def components(base: type) -> Dict[str, dict]:
    """`{name: {class, builtin, summary}}` of what is registered under `base`."""
    listed = {}
    for name, (cls, _) in sorted(Registrable._registry.get(base, {}).items()):
        doc = inspect.getdoc(cls) or ""
        listed[name] = {
            "class": f"{cls.__module__}.{cls.__qualname__}",
            "builtin": cls.__module__.split(".")[0] == "srcframework",
            "summary": first_sentence(doc),
        }
    return listed


def listing(name: Optional[str] = None) -> dict:
    names = [name] if name else preset_names()
    result: dict = {"presets": {preset: describe_preset(preset) for preset in names}}
    if not name:
        result["components"] = {kind: components(base) for kind, base in KINDS}
    return result


def format_listing(result: dict, width: int = 100) -> str:
    lines = [f"NOISE PRESETS ({PRESETS_FOLDER}): --noise NAME, or {{\"type\": \"preset\", \"name\": NAME}} in a config"]
    for preset, entry in result["presets"].items():
        lines += ["", preset, f"  {entry['description']}", f"  config:   {json.dumps(entry['config'])}"]
        if "resolved" in entry:
            lines.append(f"  resolved: {json.dumps(entry['resolved'])}")
        else:
            lines.append(f"  resolved: not buildable here ({entry['error']})")
    for kind, listed in result.get("components", {}).items():
        lines += ["", f"{kind.upper()} ({len(listed)})"]
        name_width = max((len(name) for name in listed), default=0)
        for name, info in listed.items():
            origin = "" if info["builtin"] else f"[plugin {info['class']}] "
            summary = info["summary"]
            text = f"  {name.ljust(name_width)}  {origin}{summary}"
            lines.append(text if len(text) <= width else text[: width - 3] + "...")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> dict:
    result = listing(args.name)
    print(json.dumps(result, indent=2) if args.json else format_listing(result))
    return result
