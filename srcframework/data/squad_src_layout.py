"""The on-disk layout of a SQuAD-SRC-style spoken-question folder, shared by the `squad_src`
reader, `allennlp synthesize-speech` and `allennlp transcribe`:

```
FOLDER/
  fid2qid_<split>.csv   audio file id TAB SQuAD question id, no header (as SQuAD-SRC ships it)
  speakers.tsv          speaker TAB country TAB gender [TAB voice], with a header line (optional;
                        without it the SQuAD-SRC dataset card's table applies)
  wavs/<fid>_<speaker>.wav
  squad_<split>.json    the questions' SQuAD file (optional; or squad.json for a folder's only
                        split); `squad_copy_candidates` gives the names in the order they are tried
```

The speaker of a recording is parsed from its file name with a regular expression that has the
named groups `fid` and `speaker` (`DEFAULT_FILE_PATTERN` unless configured).
"""
import csv
import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from srcframework.common.files import atomic_output

DEFAULT_FILE_PATTERN = r"^(?P<fid>[A-Za-z]+\d+)[_-](?P<speaker>SPK\d{3})\.(?:wav|flac)$"
SPEAKER_TABLE_NAME = "speakers.tsv"
AUDIO_FOLDER_NAME = "wavs"
SQUAD_COPY_NAME = "squad.json"


@dataclass(frozen=True)
class Speaker:
    speaker: str
    country: str
    gender: str
    voice: str = ""


def _squad_src_speakers() -> Dict[str, Speaker]:
    countries = ["India", "Thailand", "US", "UK", "Japan", "China"]
    female = {1, 2, 5, 6, 9, 10, 13, 14, 17, 18, 21, 22}
    table = {}
    for number in range(1, 25):
        name = f"SPK{number:03d}"
        table[name] = Speaker(name, countries[(number - 1) // 4], "F" if number in female else "M")
    return table


# SQuAD-SRC's 24 speakers, from the dataset card.
SQUAD_SRC_SPEAKERS: Dict[str, Speaker] = _squad_src_speakers()


def squad_copy_candidates(folder: str, split: Optional[str]) -> List[str]:
    """Where a folder's SQuAD file for `split` may be, first match first: `squad_<split>.json`
    (when the split is known), then `squad.json`."""
    split_copy = [os.path.join(folder, f"squad_{split}.json")] if split else []
    return split_copy + [os.path.join(folder, SQUAD_COPY_NAME)]


def wav_name(fid: str, speaker: str) -> str:
    return f"{fid}_{speaker}.wav"


def parse_wav_name(name: str, pattern: str = DEFAULT_FILE_PATTERN) -> Optional[Tuple[str, str]]:
    """`(fid, speaker)` of an audio file name, or None where the name does not match."""
    match = re.match(pattern, os.path.basename(name))
    if match is None:
        return None
    return match.group("fid"), match.group("speaker")


def read_fid2qid(path: str) -> List[Tuple[str, str]]:
    """The `(file id, question id)` rows of a fid2qid file; a malformed line raises ValueError
    naming the file and line."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"fid2qid file not found: {path}")
    rows = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            parts = line.split("\t")
            if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
                raise ValueError(f"{path}:{number}: expected 'file id<TAB>question id', got {line!r}")
            rows.append((parts[0].strip(), parts[1].strip()))
    return rows


def write_fid2qid(path: str, rows: List[Tuple[str, str]]) -> None:
    with atomic_output(path) as handle:
        for fid, qid in rows:
            handle.write(f"{fid}\t{qid}\n")


def read_speaker_table(path: str) -> Dict[str, Speaker]:
    """A `speakers.tsv` file (header `speaker country gender [voice]`) as {speaker: Speaker}."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"speaker table not found: {path}")
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        missing = {"speaker", "country", "gender"} - set(reader.fieldnames or [])
        if missing:
            raise ValueError(f"{path}: the header lacks the column(s) {sorted(missing)}")
        table = {}
        for row in reader:
            speaker = (row["speaker"] or "").strip()
            if not speaker:
                raise ValueError(f"{path}:{reader.line_num}: empty speaker name")
            table[speaker] = Speaker(speaker, row["country"].strip(), row["gender"].strip(), (row.get("voice") or "").strip())
    return table


def write_speaker_table(path: str, speakers: List[Speaker]) -> None:
    with atomic_output(path) as handle:
        handle.write("speaker\tcountry\tgender\tvoice\n")
        for speaker in speakers:
            handle.write(f"{speaker.speaker}\t{speaker.country}\t{speaker.gender}\t{speaker.voice}\n")
