import shutil
import subprocess
from typing import List

from srcframework.speech.engines import EngineNotFound, Translator

SEPARATOR = "."


def install_hint(pair: str) -> str:
    """How to install apertium and the Debian package that holds `pair` (both directions)."""
    if set(pair.split("_")[0].split("-")) == {"eng", "spa"}:
        package = "apertium-eng-spa"
    else:
        package = "apertium-XXX-YYY  (the package of the pair: apt-cache search apertium)"
    return f"apertium or its {pair} pair is not installed: apt-get update && apt-get install -y apertium {package}"


@Translator.register("apertium")
class ApertiumTranslator(Translator):
    """
    Rule-based machine translation with the Apertium program (`apertium -u PAIR`; `-u` drops the
    marks on unknown words). Deterministic.

    A batch goes through one process: the texts, each on its own line (inner line breaks become
    spaces), with a line holding only "." before, between and after them. The separator line
    ends each text's last sentence, so Apertium's transfer rules cannot move words from one text
    into the next (without it "the red\\ncar" comes back as "el coche\\nrojo"), and every text is
    translated the same way whatever batch it is in. The output must hold a "." line wherever
    the input had one, or a `RuntimeError` is raised rather than misaligned translations returned.
    A side effect of the separator: each translation starts like a new sentence (capitalised).

    # Parameters

    pair : `str`, optional (default = `"eng-spa"`)
        An Apertium mode `apertium -l` lists (for example `eng-spa`, `spa-eng`).
    """

    def __init__(self, pair: str = "eng-spa") -> None:
        self.pair = pair
        if shutil.which("apertium") is None:
            raise EngineNotFound(install_hint(pair))
        modes = subprocess.run(["apertium", "-l"], capture_output=True, text=True).stdout.split()
        if pair not in modes:
            raise EngineNotFound(install_hint(pair) + f" (installed pairs: {', '.join(modes) or 'none'})")

    def translate(self, texts: List[str]) -> List[str]:
        if not texts:
            return []
        lines = [SEPARATOR]
        for text in texts:
            lines.extend([" ".join(text.split()), SEPARATOR])
        try:
            result = subprocess.run(
                ["apertium", "-u", self.pair], input="\n".join(lines) + "\n", capture_output=True, text=True
            )
        except FileNotFoundError:
            raise EngineNotFound(install_hint(self.pair)) from None
        if result.returncode != 0:
            raise RuntimeError(f"apertium -u {self.pair} failed (exit {result.returncode}): {result.stderr.strip()}")
        output = result.stdout.split("\n")
        if output and output[-1] == "":
            output.pop()
        separators_kept = all(output[i].strip() == SEPARATOR for i in range(0, len(output), 2))
        if len(output) != len(lines) or not separators_kept:
            raise RuntimeError(
                f"apertium -u {self.pair} returned {len(output)} lines for {len(lines)} "
                f"(separators {'kept' if separators_kept else 'moved'}); translations would be misaligned"
            )
        return [line.strip() for line in output[1::2]]
