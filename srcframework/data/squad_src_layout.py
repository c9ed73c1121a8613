"""A SQuAD-SRC-style spoken-question folder: its on-disk layout, and `SquadSrcFolder`, the one
object through which the `squad_src` reader, `allennlp synthesize-speech`, `allennlp transcribe`
and `allennlp cascade` find its files and join its rows, recordings and questions:

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

The join rules (`SquadSrcFolder.join`), the same in every tool. Each broken rule is a
`DatasetError` naming the file and the id; with `skip_invalid` it is a skip, counted under the
reason in brackets, and the first row or recording stays:

- a file id listed twice in the fid2qid file ("file id listed twice in fid2qid");
- a question listed twice, that is a question with two recordings ("question listed twice in
  fid2qid");
- a file id with two recordings in `wavs/` ("second recording of a file id");
- an audio file whose name `file_pattern` does not match ("audio file name does not match
  file_pattern");
- a recording whose speaker the speaker table lacks ("speaker not in the speaker table");
- an unknown question id, one the SQuAD file lacks ("question id not in the SQuAD file"), and a
  row without a recording ("missing audio file"). A `partial` join counts these two as skips even
  without `skip_invalid`: `transcribe` and `cascade` take whatever part of a folder is there,
  while the reader asks for all of it.

The SQuAD questions that no row lists are counted (`unlisted`), an error with
`require_all_questions`. Files in `wavs/` that are not audio (`.wav`, `.flac`) are left aside and
counted (`ignored_files`), hidden ones without a count.
"""
import csv
import glob
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from srcframework.common.files import atomic_output
from srcframework.data.errors import DatasetError
from srcframework.data.squad_file import SquadQuestion, iter_questions, load_squad_json

DEFAULT_FILE_PATTERN = r"^(?P<fid>[A-Za-z]+\d+)[_-](?P<speaker>SPK\d{3})\.(?:wav|flac)$"
SPEAKER_TABLE_NAME = "speakers.tsv"
AUDIO_FOLDER_NAME = "wavs"
SQUAD_COPY_NAME = "squad.json"
AUDIO_SUFFIXES = (".wav", ".flac")
FID2QID_NAME = re.compile(r"^fid2qid_(?P<split>.+)\.csv$")

# the skip reasons of the join rules
FID_LISTED_TWICE = "file id listed twice in fid2qid"
QUESTION_LISTED_TWICE = "question listed twice in fid2qid"
UNKNOWN_QUESTION = "question id not in the SQuAD file"
MISSING_AUDIO = "missing audio file"
SECOND_RECORDING = "second recording of a file id"
NAME_MISMATCH = "audio file name does not match file_pattern"
UNKNOWN_SPEAKER = "speaker not in the speaker table"


class SquadSrcFileNotFound(DatasetError, FileNotFoundError):
    """A file or folder of a SQuAD-SRC folder that is not there."""


@dataclass(frozen=True)
class Speaker:
    """A row of the speaker table: the speaker's name (as in the recordings' file names), country
    and gender, and for a synthesized folder the TTS voice that spoke."""

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


def fid2qid_name(split: str) -> str:
    return f"fid2qid_{split}.csv"


def squad_copy_candidates(folder: str, split: Optional[str]) -> List[str]:
    """Where a folder's SQuAD file for `split` may be, first match first: `squad_<split>.json`
    (when the split is known), then `squad.json`."""
    split_copy = [os.path.join(folder, f"squad_{split}.json")] if split else []
    return split_copy + [os.path.join(folder, SQUAD_COPY_NAME)]


def wav_name(fid: str, speaker: str, suffix: str = ".wav") -> str:
    """The recording's file name: `<fid>_<speaker>.wav` (or `.flac` with that `suffix`)."""
    if suffix not in AUDIO_SUFFIXES:
        raise ValueError(f"audio suffix must be one of {', '.join(AUDIO_SUFFIXES)}, got {suffix!r}")
    return f"{fid}_{speaker}{suffix}"


def parse_wav_name(name: str, pattern: str = DEFAULT_FILE_PATTERN) -> Optional[Tuple[str, str]]:
    """`(fid, speaker)` of an audio file name, or None where the name does not match."""
    match = re.match(pattern, os.path.basename(name))
    if match is None:
        return None
    return match.group("fid"), match.group("speaker")


def check_file_pattern(file_pattern: str) -> None:
    """A `ValueError` unless `file_pattern` is a regular expression with the groups `fid` and `speaker`."""
    try:
        groups = set(re.compile(file_pattern).groupindex)
    except re.error as error:
        raise ValueError(f"file_pattern {file_pattern!r} is not a regular expression: {error}") from None
    if not {"fid", "speaker"} <= groups:
        raise ValueError(f"file_pattern {file_pattern!r} needs the named groups 'fid' and 'speaker'")


def read_fid2qid(path: str) -> List[Tuple[str, str]]:
    """The `(file id, question id)` rows of a fid2qid file; a malformed line is a `DatasetError`
    naming the file and line."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise SquadSrcFileNotFound(path, "fid2qid file not found")
    rows = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            parts = line.split("\t")
            if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
                raise DatasetError(path, f"line {number}: expected 'file id<TAB>question id', got {line!r}")
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
        raise SquadSrcFileNotFound(path, "speaker table not found")
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        missing = {"speaker", "country", "gender"} - set(reader.fieldnames or [])
        if missing:
            raise DatasetError(path, f"the header lacks the column(s) {sorted(missing)}")
        table = {}
        for row in reader:
            speaker = (row["speaker"] or "").strip()
            if not speaker:
                raise DatasetError(path, f"line {reader.line_num}: empty speaker name")
            table[speaker] = Speaker(speaker, row["country"].strip(), row["gender"].strip(), (row.get("voice") or "").strip())
    return table


def write_speaker_table(path: str, speakers: List[Speaker]) -> None:
    with atomic_output(path) as handle:
        handle.write("speaker\tcountry\tgender\tvoice\n")
        for speaker in speakers:
            handle.write(f"{speaker.speaker}\t{speaker.country}\t{speaker.gender}\t{speaker.voice}\n")


def load_speakers(
    table_path: Optional[str] = None, extra: Optional[Dict[str, Speaker]] = None
) -> Tuple[Dict[str, Speaker], str]:
    """`(speakers, where they are from)`: the table at `table_path`, else SQuAD-SRC's, with `extra` on top."""
    if table_path is None:
        table, where = dict(SQUAD_SRC_SPEAKERS), "the SQuAD-SRC speaker table"
    else:
        table, where = read_speaker_table(table_path), os.fspath(table_path)
    table.update(extra or {})
    return table, where


def raise_or_count(error: DatasetError, skip_invalid: bool, skipped: Counter) -> None:
    """Raises `error`, or with `skip_invalid` counts it in `skipped` under its reason."""
    if not skip_invalid:
        raise error
    skipped[error.reason] += 1


@dataclass
class Fid2QidMatch:
    """The rows of a fid2qid file joined with their SQuAD questions, in file order, the ids of the
    SQuAD file's questions that no row lists, and how many questions the SQuAD file holds."""

    rows: List[Tuple[str, SquadQuestion]] = field(default_factory=list)
    unlisted: List[str] = field(default_factory=list)
    questions: int = 0


def match_fid2qid(
    fid2qid_file: str,
    squad_file: str,
    skip_invalid: bool = False,
    skipped: Optional[Counter] = None,
    dataset: Optional[dict] = None,
    require_answers: bool = True,
    partial: bool = False,
    several_recordings: bool = False,
) -> Fid2QidMatch:
    """
    Joins a fid2qid file with a SQuAD-format file under the module's rules for a file id listed
    twice, a question listed twice and an unknown question id.

    # Parameters

    fid2qid_file : `str`
    squad_file : `str`
    skip_invalid : `bool`, optional (default = `False`)
        Count broken rules (and invalid SQuAD questions) in `skipped` instead of raising.
    skipped : `Counter`, optional
    dataset : `dict`, optional
        The SQuAD file's content, where the caller has loaded it.
    require_answers : `bool`, optional (default = `True`)
        Whether a SQuAD question without answers is invalid.
    partial : `bool`, optional (default = `False`)
        Count unknown question ids even without `skip_invalid`.
    several_recordings : `bool`, optional (default = `False`)
        A question may have several rows (recordings by several speakers), each kept.
    """
    skipped = Counter() if skipped is None else skipped
    fid2qid_file, squad_file = os.fspath(fid2qid_file), os.fspath(squad_file)
    rows = read_fid2qid(fid2qid_file)
    dataset = load_squad_json(squad_file) if dataset is None else dataset
    questions = {q.qid: q for q in iter_questions(squad_file, dataset, skip_invalid, skipped, require_answers)}
    match = Fid2QidMatch(questions=len(questions))
    seen_fids = set()
    fid_of: Dict[str, str] = {}  # question id -> the file id of its recording
    for fid, qid in rows:
        if fid in seen_fids:
            error = DatasetError(fid2qid_file, f"file id {fid!r} is listed twice", reason=FID_LISTED_TWICE)
            raise_or_count(error, skip_invalid, skipped)
            continue
        seen_fids.add(fid)
        question = questions.get(qid)
        if question is None:
            message = f"file id {fid!r} maps to question id {qid!r}, which {squad_file} does not hold"
            raise_or_count(DatasetError(fid2qid_file, message, reason=UNKNOWN_QUESTION), skip_invalid or partial, skipped)
            continue
        if qid in fid_of and not several_recordings:
            message = f"question id {qid!r} has two recordings: file ids {fid_of[qid]!r} and {fid!r}"
            raise_or_count(DatasetError(fid2qid_file, message, reason=QUESTION_LISTED_TWICE), skip_invalid, skipped)
            continue
        fid_of[qid] = fid
        match.rows.append((fid, question))
    match.unlisted = [qid for qid in questions if qid not in fid_of]
    return match


def find_recordings(
    folder: str,
    file_pattern: str = DEFAULT_FILE_PATTERN,
    skip_invalid: bool = False,
    skipped: Optional[Counter] = None,
    ignored: Optional[List[str]] = None,
) -> Dict[str, Tuple[str, str]]:
    """
    `{file id: (path, speaker)}` of the audio files (`.wav`, `.flac`) in `folder`, parsed with
    `file_pattern`, under the module's rules for a name the pattern does not match and a second
    recording of a file id. Other files are appended to `ignored`; hidden files are passed over.
    """
    skipped = Counter() if skipped is None else skipped
    if not os.path.isdir(folder):
        raise SquadSrcFileNotFound(folder, "audio folder not found")
    recordings: Dict[str, Tuple[str, str]] = {}
    for name in sorted(os.listdir(folder)):
        if name.startswith("."):
            continue
        path = os.path.join(folder, name)
        if not name.lower().endswith(AUDIO_SUFFIXES):
            if ignored is not None:
                ignored.append(path)
            continue
        parsed = parse_wav_name(name, file_pattern)
        if parsed is None:
            error = DatasetError(path, f"the file name does not match file_pattern {file_pattern!r}", reason=NAME_MISMATCH)
            raise_or_count(error, skip_invalid, skipped)
            continue
        fid, speaker = parsed
        if fid in recordings:
            message = f"file id {fid!r} already has a recording: {fid} has two recordings, {recordings[fid][0]} and this one"
            raise_or_count(DatasetError(path, message, reason=SECOND_RECORDING), skip_invalid, skipped)
            continue
        recordings[fid] = (path, speaker)
    return recordings


@dataclass(frozen=True)
class SpokenQuestion:
    """One question of a folder: its file id, the SQuAD question, the recording and its speaker."""

    fid: str
    question: SquadQuestion
    audio: str
    speaker: Speaker


@dataclass
class SquadSrcJoin:
    """What `SquadSrcFolder.join` found: the spoken questions in fid2qid order, the ids of the
    SQuAD questions no row lists, the skips by reason, the non-audio files left aside, and the
    counts and files behind them (`dataset` is the SQuAD file's content)."""

    fid2qid_file: str
    squad_file: str
    split: Optional[str]
    dataset: dict
    questions: List[SpokenQuestion] = field(default_factory=list)
    unlisted: List[str] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    ignored_files: List[str] = field(default_factory=list)
    squad_questions: int = 0
    rows: int = 0
    recordings: int = 0

    def unlisted_note(self) -> str:
        return (f"{len(self.unlisted)} questions of {self.squad_file} have no row in {self.fid2qid_file} "
                f"(first: {self.unlisted[:3]})")


class SquadSrcFolder:
    """
    One SQuAD-SRC-style folder (see the module docstring): where its fid2qid file, recordings,
    speaker table and SQuAD file are, and `join`, which reads them under the module's rules.
    Nothing is read before a method needs it.

    # Parameters

    path : `str`
        The folder, or its `fid2qid_<split>.csv` (the split is then the file name's).
    split : `str`, optional
        The split of a folder; without it, the folder's only `fid2qid_*.csv`.
    squad_file : `str`, optional
        The questions' SQuAD file; `{split}` in it becomes the split. Default: the first of
        `squad_copy_candidates` that exists.
    file_pattern : `str`, optional (default = `DEFAULT_FILE_PATTERN`)
        Regular expression over audio file names with the named groups `fid` and `speaker`.
    speaker_table : `str`, optional
        A `speakers.tsv` file. Default: `FOLDER/speakers.tsv` where present, else SQuAD-SRC's table.
    speakers : `Dict[str, Speaker]`, optional
        Entries that replace or add to the table's.
    """

    def __init__(
        self,
        path: str,
        split: Optional[str] = None,
        squad_file: Optional[str] = None,
        file_pattern: str = DEFAULT_FILE_PATTERN,
        speaker_table: Optional[str] = None,
        speakers: Optional[Dict[str, Speaker]] = None,
    ) -> None:
        check_file_pattern(file_pattern)
        self.path = os.fspath(path)
        self.split = split
        self.squad_file = os.fspath(squad_file) if squad_file is not None else None
        self.file_pattern = file_pattern
        self.speaker_table = os.fspath(speaker_table) if speaker_table is not None else None
        self.speakers = dict(speakers or {})

    @property
    def folder(self) -> str:
        return (os.path.dirname(self.path) or ".") if os.path.isfile(self.path) else self.path

    @property
    def audio_folder(self) -> str:
        return os.path.join(self.folder, AUDIO_FOLDER_NAME)

    @property
    def speaker_table_file(self) -> str:
        """The speaker table given, else where the folder's own is (or would be)."""
        return self.speaker_table or os.path.join(self.folder, SPEAKER_TABLE_NAME)

    def fid2qid_file(self) -> str:
        """`path` itself where it is a file, else `FOLDER/fid2qid_<split>.csv`, else the folder's only
        fid2qid file."""
        if os.path.isfile(self.path):
            return self.path
        if self.split is not None:
            return os.path.join(self.path, fid2qid_name(self.split))
        if not os.path.isdir(self.path):
            raise SquadSrcFileNotFound(self.path, "not found: expected a SQuAD-SRC folder or its fid2qid_<split>.csv")
        found = sorted(glob.glob(os.path.join(glob.escape(self.path), fid2qid_name("*"))))
        if len(found) != 1:
            names = ", ".join(os.path.basename(f) for f in found) or "none"
            raise DatasetError(self.path, f"expected one fid2qid_<split>.csv (or the `split` argument), found {names}")
        return found[0]

    def split_of(self, fid2qid: str) -> Optional[str]:
        """The split a fid2qid file name gives, else `split`."""
        name = FID2QID_NAME.match(os.path.basename(fid2qid))
        return name.group("split") if name else self.split

    def squad_candidates(self) -> List[str]:
        return squad_copy_candidates(self.folder, self.split_of(self.fid2qid_file()))

    def squad_path(self) -> str:
        """The SQuAD file: `squad_file` (with its split), else the first candidate that exists."""
        fid2qid = self.fid2qid_file()
        split = self.split_of(fid2qid)
        if self.squad_file:
            if "{split}" in self.squad_file and split is None:
                raise DatasetError(fid2qid, f"squad_file {self.squad_file!r} needs a split, and the file name gives none")
            path = self.squad_file.replace("{split}", split or "")
            if not os.path.isfile(path):
                raise SquadSrcFileNotFound(path, "file not found")
            return path
        candidates = squad_copy_candidates(self.folder, split)
        for candidate in candidates:
            if os.path.isfile(candidate):
                return candidate
        names = candidates[0] if len(candidates) == 1 else "neither " + " nor ".join(candidates)
        raise SquadSrcFileNotFound(
            self.folder, f"no SQuAD file: {names} exists; give it with --squad (a reader: squad_file)"
        )

    def load_speakers(self) -> Tuple[Dict[str, Speaker], str]:
        """`(speakers, where they are from)`: `speaker_table`, else the folder's, else SQuAD-SRC's."""
        table = self.speaker_table
        if table is None and os.path.isfile(self.speaker_table_file):
            table = self.speaker_table_file
        return load_speakers(table, self.speakers)

    def join(
        self,
        skip_invalid: bool = False,
        partial: bool = False,
        require_answers: bool = True,
        require_all_questions: bool = False,
        skipped: Optional[Counter] = None,
        several_recordings: bool = False,
    ) -> SquadSrcJoin:
        """
        The folder's spoken questions, under the module's rules.

        # Parameters

        skip_invalid : `bool`, optional (default = `False`)
            Every broken rule (and every invalid SQuAD question) is a counted skip, not an error.
        partial : `bool`, optional (default = `False`)
            Unknown question ids and rows without a recording are counted skips, not errors.
        require_answers : `bool`, optional (default = `True`)
            Whether a SQuAD question without answers is invalid.
        require_all_questions : `bool`, optional (default = `False`)
            Raise when some SQuAD question has no row.
        skipped : `Counter`, optional
            Where to count the skips (reason -> count); the result holds it.
        several_recordings : `bool`, optional (default = `False`)
            A question may have several rows (e.g. one per synthesized voice); otherwise a
            question listed twice breaks a rule.
        """
        fid2qid = self.fid2qid_file()
        if not os.path.isfile(fid2qid):
            raise SquadSrcFileNotFound(fid2qid, f"fid2qid file of split {self.split!r} not found")
        squad = self.squad_path()
        join = SquadSrcJoin(fid2qid, squad, self.split_of(fid2qid), load_squad_json(squad))
        join.skipped = Counter() if skipped is None else skipped
        match = match_fid2qid(
            fid2qid, squad, skip_invalid, join.skipped, join.dataset, require_answers, partial, several_recordings
        )
        join.unlisted, join.squad_questions = match.unlisted, match.questions
        if match.unlisted and require_all_questions:
            raise DatasetError(squad, join.unlisted_note())
        speakers, where = self.load_speakers()
        recordings = find_recordings(self.audio_folder, self.file_pattern, skip_invalid, join.skipped, join.ignored_files)
        join.rows, join.recordings = len(match.rows), len(recordings)
        for fid, question in match.rows:
            if fid not in recordings:
                message = f"no recording of file id {fid!r} (expected {fid}_<speaker>.wav)"
                error = DatasetError(self.audio_folder, message, reason=MISSING_AUDIO)
                raise_or_count(error, skip_invalid or partial, join.skipped)
                continue
            path, name = recordings[fid]
            speaker = speakers.get(name)
            if speaker is None:
                error = DatasetError(path, f"speaker {name!r} is not in {where}", reason=UNKNOWN_SPEAKER)
                raise_or_count(error, skip_invalid, join.skipped)
                continue
            join.questions.append(SpokenQuestion(fid, question, path, speaker))
        return join
