import glob
import logging
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple, Union

import numpy
from allennlp.data import DatasetReader, Instance
from allennlp.data.fields import MetadataField
from allennlp.data.token_indexers import SingleIdTokenIndexer, TokenIndexer
from allennlp.data.tokenizers import Token, Tokenizer

from srcframework.data.audio_indexers.audio_indexer import AudioIndexer, AudioTooLong, WaveformIndexer
from srcframework.data.dataset_readers.squad import add_context_fields, log_read
from srcframework.data.errors import DatasetError
from srcframework.data.fields.audio_field import AudioField
from srcframework.data.squad_file import SquadQuestion, iter_questions, load_squad_json
from srcframework.data.squad_src_layout import (
    AUDIO_FOLDER_NAME,
    DEFAULT_FILE_PATTERN,
    SPEAKER_TABLE_NAME,
    SQUAD_SRC_SPEAKERS,
    Speaker,
    squad_copy_candidates,
    read_fid2qid,
    read_speaker_table,
)
from srcframework.data.tokenizers.blank_spacy import BlankSpacyTokenizer

logger = logging.getLogger(__name__)

AUDIO_SUFFIXES = (".wav", ".flac")
FID2QID_NAME = re.compile(r"^fid2qid_(?P<split>.+)\.csv$")


@dataclass
class Fid2QidMatch:
    """The rows of a fid2qid file joined with their SQuAD questions, in file order, and the ids of
    the SQuAD file's questions that no row lists."""

    rows: List[Tuple[str, SquadQuestion]] = field(default_factory=list)
    unlisted: List[str] = field(default_factory=list)


def _invalid(error: DatasetError, skip_invalid: bool, skipped: Counter) -> None:
    if not skip_invalid:
        raise error
    skipped[error.reason] += 1


def _strip_path(message: str, path: str) -> str:
    """An error message naming `path`, without that name (a `DatasetError` puts it in front)."""
    if message.startswith(f"{path}:"):
        return message[len(path) + 1 :].strip()
    if message.endswith(f": {path}"):
        return message[: -len(path) - 2]
    return message.replace(f" {path}:", ":", 1)


def match_fid2qid(
    fid2qid_file: str,
    squad_file: str,
    skip_invalid: bool = False,
    skipped: Optional[Counter] = None,
    dataset: Optional[dict] = None,
) -> Fid2QidMatch:
    """
    Joins a fid2qid file (audio file id TAB question id) with a SQuAD-format file. A malformed
    line, a file id listed twice, or a question id the SQuAD file lacks raises a `DatasetError`
    naming the fid2qid file; with `skip_invalid` such rows are counted in `skipped` instead.
    """
    skipped = Counter() if skipped is None else skipped
    fid2qid_file = os.fspath(fid2qid_file)
    try:
        rows = read_fid2qid(fid2qid_file)
    except FileNotFoundError:
        raise DatasetError(fid2qid_file, "fid2qid file not found") from None
    except ValueError as error:
        raise DatasetError(fid2qid_file, "line " + _strip_path(str(error), fid2qid_file)) from None
    dataset = load_squad_json(squad_file) if dataset is None else dataset
    questions = {q.qid: q for q in iter_questions(squad_file, dataset, skip_invalid, skipped)}
    match = Fid2QidMatch()
    seen_fids, listed = set(), set()
    for fid, qid in rows:
        if fid in seen_fids:
            _invalid(DatasetError(fid2qid_file, f"file id {fid!r} is listed twice", reason="file id listed twice in fid2qid"), skip_invalid, skipped)
            continue
        seen_fids.add(fid)
        question = questions.get(qid)
        if question is None:
            error = DatasetError(
                fid2qid_file,
                f"file id {fid!r} maps to question id {qid!r}, which {squad_file} does not hold",
                reason="question id not in the SQuAD file",
            )
            _invalid(error, skip_invalid, skipped)
            continue
        listed.add(qid)
        match.rows.append((fid, question))
    match.unlisted = [qid for qid in questions if qid not in listed]
    return match


def find_recordings(
    folder: str, file_pattern: str = DEFAULT_FILE_PATTERN, skip_invalid: bool = False, skipped: Optional[Counter] = None
) -> Dict[str, Tuple[str, str]]:
    """
    `{file id: (path, speaker)}` of the audio files (`.wav`, `.flac`; hidden files are ignored) in
    `folder`, parsed with `file_pattern` (named groups `fid` and `speaker`). A name the pattern does
    not match, or a second recording of one file id, raises a `DatasetError` naming the file; with
    `skip_invalid` it is counted in `skipped` and left out.
    """
    skipped = Counter() if skipped is None else skipped
    if not os.path.isdir(folder):
        raise DatasetError(folder, "audio folder not found")
    pattern = re.compile(file_pattern)
    recordings: Dict[str, Tuple[str, str]] = {}
    for name in sorted(os.listdir(folder)):
        if name.startswith(".") or not name.lower().endswith(AUDIO_SUFFIXES):
            continue
        path = os.path.join(folder, name)
        match = pattern.match(name)
        if match is None:
            error = DatasetError(path, f"the file name does not match file_pattern {file_pattern!r}", reason="audio file name does not match file_pattern")
            _invalid(error, skip_invalid, skipped)
            continue
        fid, speaker = match.group("fid"), match.group("speaker")
        if fid in recordings:
            error = DatasetError(path, f"file id {fid!r} already has a recording: {recordings[fid][0]}", reason="second recording of a file id")
            _invalid(error, skip_invalid, skipped)
            continue
        recordings[fid] = (path, speaker)
    return recordings


@DatasetReader.register("squad_src")
class SquadSrcReader(DatasetReader):
    """
    Reads SQuAD-SRC-style spoken questions (Tang et al. 2023): each instance has a `context`
    TextField, the spoken `question` as an `AudioField`, inclusive `span_start`/`span_end` token
    indices of the first answer, and `metadata` (`id` = SQuAD question id, `fid`, `speaker`,
    `country`, `gender`, `question` = the reference text, `context`, `context_offsets`, `answers`,
    `audio` = the file, `duration` in seconds, and `extra`: the SQuAD file's extra fields and title).

    `file_path` (`train_data_path`, `validation_data_path`, `allennlp predict`'s input) is the
    fid2qid file of one split, `FOLDER/fid2qid_<split>.csv`, in a folder laid out as
    `srcframework.data.squad_src_layout` describes:

    ```
    FOLDER/fid2qid_<split>.csv      audio file id TAB SQuAD question id
    FOLDER/wavs/<fid>_<speaker>.wav
    FOLDER/speakers.tsv             optional
    FOLDER/squad_<split>.json       optional: the SQuAD file, unless `squad_file` names it
    ```

    `file_path` may also be FOLDER itself; the split is then `split`, or the only
    `fid2qid_*.csv` of the folder. The SQuAD file is `squad_file` (where `{split}` becomes the
    split), else `FOLDER/squad_<split>.json`, else `FOLDER/squad.json`. So one reader serves
    both splits of the real SQuAD-SRC with
    `squad_file: "../shared/data/squad/{split}-v1.1.json"` and data paths ending in
    `fid2qid_train.csv` / `fid2qid_dev.csv`.

    Instances follow the fid2qid file's order; only the listed questions are read, and the SQuAD
    questions no row lists are counted (`last_unlisted`) and logged. Bad input raises a
    `DatasetError` naming the file: a missing, empty or unreadable recording, a file id whose
    question the SQuAD file lacks, an audio file name that `file_pattern` does not match, a
    speaker the speaker table lacks. With `skip_invalid` each is a counted skip instead, logged at
    the end of a read and kept in `last_skipped` (reason -> count). Recordings at another sample
    rate are resampled and stereo is averaged to mono by the `audio_indexer`; a recording longer
    than its `max_seconds` follows its `overflow` (truncated, skipped and counted, or an error).

    # Parameters

    audio_indexer : `AudioIndexer`, optional (default = `waveform` with its defaults)
    tokenizer : `Tokenizer`, optional (default = `blank_spacy`)
        For contexts; must set token offsets.
    token_indexers : `Dict[str, TokenIndexer]`, optional (default = `{"tokens": single_id}`)
    passage_length_limit : `int`, optional
        Contexts are cut to this many tokens; a question whose answer lies past the cut is
        skipped and counted (use it for training data only).
    squad_file : `str`, optional
        The SQuAD-format file holding the questions; `{split}` in it is replaced by the split.
    split : `str`, optional
        The split to read when `file_path` is a folder with several fid2qid files.
    file_pattern : `str`, optional (default = `squad_src_layout.DEFAULT_FILE_PATTERN`)
        Regular expression over audio file names with named groups `fid` and `speaker`.
    speaker_table : `str`, optional
        A `speakers.tsv` file (speaker, country, gender [, voice]). Default: `FOLDER/speakers.tsv`
        where present, else SQuAD-SRC's table of 24 speakers.
    speakers : `Dict[str, Dict[str, str]]`, optional
        `{speaker: {"country": ..., "gender": ...}}`; entries replace or add to the table's.
    skip_invalid : `bool`, optional (default = `False`)
    require_all_questions : `bool`, optional (default = `False`)
        Raise when some SQuAD question has no fid2qid row (by default they are counted and logged).
    """

    def __init__(
        self,
        audio_indexer: Optional[AudioIndexer] = None,
        tokenizer: Optional[Tokenizer] = None,
        token_indexers: Optional[Dict[str, TokenIndexer]] = None,
        passage_length_limit: Optional[int] = None,
        squad_file: Optional[str] = None,
        split: Optional[str] = None,
        file_pattern: str = DEFAULT_FILE_PATTERN,
        speaker_table: Optional[str] = None,
        speakers: Optional[Dict[str, Dict[str, str]]] = None,
        skip_invalid: bool = False,
        require_all_questions: bool = False,
        **kwargs,
    ) -> None:
        super().__init__(manual_distributed_sharding=True, manual_multiprocess_sharding=True, **kwargs)
        self.audio_indexer = audio_indexer or WaveformIndexer()
        self._tokenizer = tokenizer or BlankSpacyTokenizer()
        self._token_indexers = token_indexers or {"tokens": SingleIdTokenIndexer()}
        self.passage_length_limit = passage_length_limit
        self.squad_file = squad_file
        self.split = split
        try:
            groups = set(re.compile(file_pattern).groupindex)
        except re.error as error:
            raise ValueError(f"file_pattern {file_pattern!r} is not a regular expression: {error}") from None
        if not {"fid", "speaker"} <= groups:
            raise ValueError(f"file_pattern {file_pattern!r} needs the named groups 'fid' and 'speaker'")
        self.file_pattern = file_pattern
        self.speaker_table = speaker_table
        self.speakers = {}
        for name, info in (speakers or {}).items():
            if not isinstance(info, dict) or not {"country", "gender"} <= set(info):
                raise ValueError(f"speakers[{name!r}] needs 'country' and 'gender', got {info!r}")
            self.speakers[name] = Speaker(name, str(info["country"]), str(info["gender"]), str(info.get("voice", "")))
        self.skip_invalid = skip_invalid
        self.require_all_questions = require_all_questions
        self.last_skipped: Counter = Counter()
        self.last_unlisted = 0
        self._default_speakers: Optional[Dict[str, Speaker]] = None

    def locate(self, file_path: Union[str, os.PathLike]) -> Tuple[str, str, Optional[str], str]:
        """`(folder, fid2qid file, split, SQuAD file)` of a `file_path`, as the class docstring says."""
        path = os.fspath(file_path)
        if os.path.isdir(path):
            folder = path
            if self.split is not None:
                fid2qid = os.path.join(folder, f"fid2qid_{self.split}.csv")
                if not os.path.isfile(fid2qid):
                    raise DatasetError(fid2qid, f"fid2qid file of split {self.split!r} not found")
            else:
                found = sorted(glob.glob(os.path.join(glob.escape(folder), "fid2qid_*.csv")))
                if len(found) != 1:
                    names = ", ".join(os.path.basename(f) for f in found) or "none"
                    raise DatasetError(folder, f"expected one fid2qid_<split>.csv (or the `split` argument), found {names}")
                fid2qid = found[0]
        elif os.path.isfile(path):
            folder, fid2qid = os.path.dirname(path) or ".", path
        else:
            raise DatasetError(path, "not found: expected a SQuAD-SRC folder or its fid2qid_<split>.csv")
        name = FID2QID_NAME.match(os.path.basename(fid2qid))
        split = name.group("split") if name else self.split
        return folder, fid2qid, split, self._squad_path(folder, fid2qid, split)

    def _squad_path(self, folder: str, fid2qid: str, split: Optional[str]) -> str:
        if self.squad_file:
            if "{split}" in self.squad_file and split is None:
                raise DatasetError(fid2qid, f"squad_file {self.squad_file!r} needs a split, and the file name gives none")
            return self.squad_file.replace("{split}", split or "")
        candidates = squad_copy_candidates(folder, split)
        for candidate in candidates:
            if os.path.isfile(candidate):
                return candidate
        raise DatasetError(fid2qid, f"no SQuAD file: set squad_file, or put {' or '.join(candidates)} beside it")

    def speaker_info(self, folder: Optional[str] = None) -> Tuple[Dict[str, Speaker], str]:
        """The speaker table that applies to `folder` (with `speakers` on top) and where it is from."""
        table_path = self.speaker_table
        if table_path is None and folder is not None and os.path.isfile(os.path.join(folder, SPEAKER_TABLE_NAME)):
            table_path = os.path.join(folder, SPEAKER_TABLE_NAME)
        if table_path is None:
            table, where = dict(SQUAD_SRC_SPEAKERS), "the SQuAD-SRC speaker table"
        else:
            try:
                table = read_speaker_table(table_path)
            except FileNotFoundError:
                raise DatasetError(table_path, "speaker table not found") from None
            except ValueError as error:
                raise DatasetError(table_path, _strip_path(str(error), table_path)) from None
            where = table_path
        table.update(self.speakers)
        return table, where

    def _read(self, file_path: str) -> Iterable[Instance]:
        folder, fid2qid, split, squad_path = self.locate(file_path)
        skipped: Counter = Counter()
        match = match_fid2qid(fid2qid, squad_path, self.skip_invalid, skipped)
        self.last_unlisted = len(match.unlisted)
        if match.unlisted:
            message = f"{len(match.unlisted)} questions of {squad_path} have no row in {fid2qid} (first: {match.unlisted[:3]})"
            if self.require_all_questions:
                raise DatasetError(squad_path, message)
            logger.info(message)
        speakers, speaker_source = self.speaker_info(folder)
        audio_folder = os.path.join(folder, AUDIO_FOLDER_NAME)
        recordings = find_recordings(audio_folder, self.file_pattern, self.skip_invalid, skipped)
        last_context, context_tokens = None, None
        kept = 0
        for fid, question in self.shard_iterable(match.rows):
            audio = self._load(fid, recordings, speakers, speaker_source, audio_folder, skipped)
            if audio is None:
                continue
            field, speaker = audio
            if question.context is not last_context:
                last_context, context_tokens = question.context, self._tokenizer.tokenize(question.context)
            instance = self.text_to_instance(
                field,
                question.context,
                question.answers,
                question.answer_starts,
                question_id=question.qid,
                question=question.question,
                fid=fid,
                speaker=speaker.speaker,
                country=speaker.country,
                gender=speaker.gender,
                context_tokens=context_tokens,
                extra=dict(question.extra, title=question.title),
            )
            if instance is None:
                skipped["answer lies beyond passage_length_limit"] += 1
                continue
            kept += 1
            yield instance
        self.last_skipped = skipped
        log_read(fid2qid, kept, skipped, "spoken questions")

    def _load(self, fid, recordings, speakers, speaker_source, audio_folder, skipped) -> Optional[Tuple[AudioField, Speaker]]:
        """The prepared recording of `fid` and its speaker, or None after a counted skip."""
        if fid not in recordings:
            error = DatasetError(audio_folder, f"no recording of file id {fid!r} (expected {fid}_<speaker>.wav)", reason="missing audio file")
            _invalid(error, self.skip_invalid, skipped)
            return None
        path, name = recordings[fid]
        speaker = speakers.get(name)
        if speaker is None:
            error = DatasetError(path, f"speaker {name!r} is not in {speaker_source}", reason="speaker not in the speaker table")
            _invalid(error, self.skip_invalid, skipped)
            return None
        try:
            waveform = self.audio_indexer.prepare(path)
        except AudioTooLong:
            raise
        except (FileNotFoundError, ValueError) as error:
            reason = "missing audio file" if isinstance(error, FileNotFoundError) else "empty or unreadable audio file"
            _invalid(DatasetError(path, _strip_path(str(error), path), reason=reason), self.skip_invalid, skipped)
            return None
        if waveform is None:
            skipped["audio longer than max_seconds"] += 1
            return None
        return AudioField(waveform, self.audio_indexer.target_sample_rate, source=path), speaker

    def text_to_instance(  # type: ignore
        self,
        audio: Union[str, os.PathLike, numpy.ndarray, AudioField],
        context: str,
        answers: Optional[List[str]] = None,
        answer_starts: Optional[List[int]] = None,
        question_id: Optional[str] = None,
        question: Optional[str] = None,
        sample_rate: Optional[int] = None,
        fid: Optional[str] = None,
        speaker: Optional[str] = None,
        country: Optional[str] = None,
        gender: Optional[str] = None,
        context_tokens: Optional[List[Token]] = None,
        extra: Optional[dict] = None,
    ) -> Optional[Instance]:
        """
        An instance from a spoken question: an audio file path, a waveform recorded at
        `sample_rate`, or a prepared `AudioField`. Paths and waveforms go through the audio
        indexer. None when the indexer skips the audio (too long with `overflow="skip"`) or the
        answer lies beyond `passage_length_limit`. A `speaker` without `country`/`gender` is
        looked up in `speakers`/`speaker_table`/SQuAD-SRC's table.
        """
        if isinstance(audio, AudioField):
            question_field = audio
        else:
            source = os.fspath(audio) if isinstance(audio, (str, os.PathLike)) else None
            waveform = self.audio_indexer.prepare(audio, sample_rate)
            if waveform is None:
                return None
            question_field = AudioField(waveform, self.audio_indexer.target_sample_rate, source=source)
        if speaker is not None and (country is None or gender is None):
            if self._default_speakers is None:
                self._default_speakers = self.speaker_info()[0]
            known = self._default_speakers.get(speaker)
            if known is not None:
                country = known.country if country is None else country
                gender = known.gender if gender is None else gender
        context_tokens = context_tokens if context_tokens is not None else self._tokenizer.tokenize(context)
        if self.passage_length_limit is not None:
            context_tokens = context_tokens[: self.passage_length_limit]
        fields = {"question": question_field}
        answers = answers or []
        offsets = add_context_fields(fields, context_tokens, self._token_indexers, answers, answer_starts)
        if offsets is None:
            return None
        metadata = {
            "id": question_id,
            "fid": fid,
            "speaker": speaker,
            "country": country,
            "gender": gender,
            "question": question,
            "context": context,
            "context_offsets": offsets,
            "answers": answers,
            "audio": question_field.source,
            "duration": question_field.duration,
            "extra": dict(extra or {}),
        }
        fields["metadata"] = MetadataField(metadata)
        return Instance(fields)
