"""
Word n-gram language models for CTC beam decoding, estimated by IRSTLM (Debian package `irstlm`)
and written as ARPA text, which KenLM (inside flashlight-text) loads.

Sentences are normalised as the CTC recogniser writes its transcripts (`normalize_transcript`:
lowercase letters, digits, apostrophes, single spaces), so every word of the model can be spelled
in the recogniser's characters.
"""
import os
import shutil
import subprocess
import tempfile
from typing import Dict, Iterable, List

from srcframework.common.errors import InputError, InputFileNotFound
from srcframework.speech.engines import EngineNotFound
from srcframework.speech.speecht5_ctc_network import normalize_transcript

TLM_PATHS = ("/usr/lib/irstlm/bin/tlm",)
INSTALL_HINT = "IRSTLM's tlm is missing: apt-get install irstlm (make install does)"
SENTENCE_MARKERS = ("<s>", "</s>", "<unk>")
# IRSTLM's smoothing methods: modified shift-beta (Kneser-Ney-like), shift-beta, Witten-Bell
SMOOTHING = ("msb", "sb", "wb")


def tlm_program() -> str:
    """The path of IRSTLM's `tlm`, or `EngineNotFound`."""
    for path in (shutil.which("tlm"), *TLM_PATHS):
        if path and os.access(path, os.X_OK):
            return path
    raise EngineNotFound(INSTALL_HINT)


def build_word_lm(sentences: Iterable[str], output_path: str, order: int = 3, smoothing: str = "msb") -> Dict[str, int]:
    """
    Estimates an `order`-gram back-off model of the normalised `sentences` with IRSTLM `tlm` (no
    pruning of singletons) and writes it to `output_path` as ARPA. Returns the counts: sentences,
    running words, and n-grams of each order.
    """
    if order < 1:
        raise InputError(f"word LM order must be at least 1, got {order}")
    if smoothing not in SMOOTHING:
        raise InputError(f"unknown smoothing {smoothing!r}; choose from {', '.join(SMOOTHING)}")
    lines = [text for text in (normalize_transcript(s) for s in sentences) if text]
    if not lines:
        raise InputError("no sentence to estimate a word LM from (all empty after normalisation)")
    program = tlm_program()
    folder = os.path.dirname(os.path.abspath(output_path))
    os.makedirs(folder, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        corpus, arpa = os.path.join(tmp, "corpus.txt"), os.path.join(tmp, "lm.arpa")
        with open(corpus, "w", encoding="utf-8") as handle:
            handle.writelines(f"<s> {line} </s>\n" for line in lines)
        command = [program, f"-tr={corpus}", f"-n={order}", f"-lm={smoothing}", "-bo=yes", "-ps=no", f"-o={arpa}"]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0 or not os.path.isfile(arpa):
            last = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise InputError(f"tlm could not estimate the word LM ({' / '.join(last)}); try smoothing 'wb' for a small corpus")
        os.replace(arpa, output_path)
    counts = {"sentences": len(lines), "words": sum(len(line.split()) for line in lines)}
    counts.update(arpa_counts(output_path))
    return counts


def arpa_counts(path: str) -> Dict[str, int]:
    """`{"1-grams": n, ...}` from an ARPA file's `\\data\\` header."""
    counts = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if line.startswith("ngram ") and "=" in line:
                order, number = line[len("ngram "):].split("=")
                counts[f"{order.strip()}-grams"] = int(number)
            elif line.startswith("\\1-grams:"):
                break
    return counts


def arpa_words(path: str) -> List[str]:
    """The words of an ARPA file's unigrams, without `<s>`, `</s>` and `<unk>`, in file order."""
    if not os.path.isfile(path):
        raise InputFileNotFound(f"word LM {path} does not exist")
    words, section = [], None
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if line.startswith("\\"):
                section = line
            elif section == "\\1-grams:" and line:
                fields = line.split()
                if len(fields) < 2:
                    raise InputError(f"{path}: not an ARPA unigram line: {line!r}")
                if fields[1] not in SENTENCE_MARKERS:
                    words.append(fields[1])
    if section is None:
        raise InputError(f"{path} is not an ARPA file (no \\data\\ section)")
    return words
