import logging
import os
from collections import Counter, deque
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, Iterable, Iterator, List, Optional, Tuple, Union

import numpy
import torch
from allennlp.data import DatasetReader, Instance
from allennlp.data.fields import MetadataField, TensorField
from allennlp.data.token_indexers import SingleIdTokenIndexer, TokenIndexer
from allennlp.data.tokenizers import Token, Tokenizer

from srcframework.common.audio import SilentAudio
from srcframework.common.errors import without_path
from srcframework.data.audio_indexers.audio_indexer import AudioIndexer, AudioTooLong, WaveformIndexer
from srcframework.data.audio_perturbation import AudioPerturbation, SoxCrashed
from srcframework.data.dataset_readers.squad import add_context_fields
from srcframework.data.dataset_readers.squad_questions import log_read
from srcframework.data.errors import DatasetError
from srcframework.data.fields.audio_field import AudioField
from srcframework.data.noise_schedule import epoch_seed
from srcframework.data.noise_source import question_rng
from srcframework.data.squad_src_layout import (
    DEFAULT_FILE_PATTERN,
    MISSING_AUDIO,
    Speaker,
    SquadSrcFileNotFound,
    SquadSrcFolder,
    check_file_pattern,
    load_speakers,
    raise_or_count,
)
from srcframework.data.tokenizers.blank_spacy import BlankSpacyTokenizer
from srcframework.speech.speecht5_ctc_network import TARGET_PADDING, character_ids

logger = logging.getLogger(__name__)


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

    The folder is read through `squad_src_layout.SquadSrcFolder`, under its join rules (the same
    as `allennlp transcribe` and `allennlp cascade` follow). Instances follow the fid2qid file's
    order; only the listed questions are read, and the SQuAD questions no row lists are counted
    (`last_unlisted`) and logged. Bad input raises a `DatasetError` naming the file and the id:
    a file id or question listed twice, a file id with two recordings, a file id whose question
    the SQuAD file lacks, a row without a recording, an audio file name that `file_pattern` does
    not match, a speaker the speaker table lacks, an empty, unreadable or silent recording (silent:
    all zero, or no sample reaching -80 dBFS, the rule `transcribe` follows). With
    `skip_invalid` each is a counted skip instead, logged at the end of a read and kept in
    `last_skipped` (reason -> count). Recordings at another sample rate are resampled and stereo
    is averaged to mono by the `audio_indexer`; a recording longer than its `max_seconds` follows
    its `overflow` (truncated, skipped and counted, or an error).

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
        Where that file is not there but the folder read has its own SQuAD file
        (`squad_<split>.json` or `squad.json`, as `allennlp synthesize-speech` writes), the
        folder's is read, with a warning naming both: so the reader of an archive, which names
        the file it was trained with (`runs/data/...`), reads a folder of one's own recordings at
        test time (`allennlp predict ARCHIVE FOLDER/fid2qid_dev.csv --use-dataset-reader`) with
        no override. Otherwise a named file that is there is the one read, unless
        `folder_squad_file_first`.
    folder_squad_file_first : `bool`, optional (default = `False`)
        Read the folder's own SQuAD file, where it has one, before `squad_file` (said in a log
        line). The `span_qa` predictor sets it on its reader: a test-time reader reads the folder
        it is given, even where the training file the archive names is there too.
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
    several_recordings : `bool`, optional (default = `False`)
        Read a question listed on several rows once per row (e.g. the same questions read by
        several synthesized voices, for training a speech encoder); by default a question listed
        twice is an error.
    audio_perturbation : `AudioPerturbation`, optional
        Training augmentation: each recording's speed, pitch and volume are perturbed as it is
        read, with settings drawn from `(noise_seed, epoch, file id)` alone (the trainer gives
        the epoch through the `reader_epoch` callback), so a resumed run reads what a straight
        one reads. The settings go into the metadata as `perturbation`. Give it to
        `dataset_reader` only, so that validation stays unperturbed.
    noise_seed : `int`, optional (default = `0`)
    loading_threads : `int`, optional (default = `1`)
        Recordings loaded (and perturbed, with `audio_perturbation`) at once, ahead of the
        instance being built, in that many threads: soundfile decodes outside Python's lock and
        SoX runs as a process of its own, so on several cores a read goes faster (SoX spends
        much of an utterance's time starting and piping). The instances, their order, their
        perturbations and the errors raised are the same for any number.
    ctc_targets : `bool`, optional (default = `False`)
        Add a `question_targets` field: the typed question's characters, normalised as the
        `speecht5_ctc` recogniser normalises its targets (`normalize_transcript`), as ids of its
        characters (`speecht5_ctc_network.CHARACTERS`; padded with -1 in a batch), for the CTC
        loss of the `speecht5` question encoder's `ctc_weight`. Give it to `dataset_reader`
        only: readers without it read what they read before.
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
        several_recordings: bool = False,
        audio_perturbation: Optional[AudioPerturbation] = None,
        noise_seed: int = 0,
        loading_threads: int = 1,
        folder_squad_file_first: bool = False,
        ctc_targets: bool = False,
        **kwargs,
    ) -> None:
        super().__init__(manual_distributed_sharding=True, manual_multiprocess_sharding=True, **kwargs)
        self.audio_indexer = audio_indexer or WaveformIndexer()
        self._tokenizer = tokenizer or BlankSpacyTokenizer()
        self._token_indexers = token_indexers or {"tokens": SingleIdTokenIndexer()}
        self.passage_length_limit = passage_length_limit
        self.squad_file = squad_file
        self.split = split
        check_file_pattern(file_pattern)
        self.file_pattern = file_pattern
        self.speaker_table = speaker_table
        self.speakers = {}
        for name, info in (speakers or {}).items():
            if not isinstance(info, dict) or not {"country", "gender"} <= set(info):
                raise ValueError(f"speakers[{name!r}] needs 'country' and 'gender', got {info!r}")
            self.speakers[name] = Speaker(name, str(info["country"]), str(info["gender"]), str(info.get("voice", "")))
        self.skip_invalid = skip_invalid
        self.require_all_questions = require_all_questions
        self.several_recordings = several_recordings
        self.audio_perturbation = audio_perturbation
        self.noise_seed = noise_seed
        if isinstance(loading_threads, bool) or not isinstance(loading_threads, int) or loading_threads < 1:
            raise ValueError(f"squad_src: loading_threads must be a whole number of at least 1, got {loading_threads!r}")
        self.loading_threads = loading_threads
        self.folder_squad_file_first = folder_squad_file_first
        self.ctc_targets = ctc_targets
        # set by the `reader_epoch` trainer callback; None: reads are counted as epochs
        self.epoch: Optional[int] = None
        self._reads = 0
        self.last_skipped: Counter = Counter()
        self.last_unlisted = 0
        self._default_speakers: Optional[Dict[str, Speaker]] = None

    def folder(self, file_path: Union[str, os.PathLike]) -> SquadSrcFolder:
        """The SQuAD-SRC folder that `file_path` (the folder or its fid2qid file) names, with this
        reader's settings; where `squad_file` is not there and the folder has its own SQuAD file,
        with that one (see `squad_file`)."""
        found = SquadSrcFolder(file_path, self.split, self.squad_file, self.file_pattern, self.speaker_table, self.speakers)
        if self.squad_file is None or not os.path.exists(found.path):
            return found
        own = SquadSrcFolder(file_path, self.split, None, self.file_pattern, self.speaker_table, self.speakers)
        present = [candidate for candidate in own.squad_candidates() if os.path.isfile(candidate)]
        if present and self.folder_squad_file_first:
            logger.info("squad_src: reading the folder's own SQuAD file %s (not squad_file %s)", present[0], self.squad_file)
            return own
        try:
            found.squad_path()
        except SquadSrcFileNotFound:
            if not present:
                raise
            logger.warning("squad_src: squad_file %s is not there; reading the folder's own SQuAD file %s",
                           self.squad_file, present[0])
            return own
        return found

    def _read(self, file_path: str) -> Iterable[Instance]:
        skipped: Counter = Counter()
        join = self.folder(file_path).join(
            self.skip_invalid,
            require_all_questions=self.require_all_questions,
            skipped=skipped,
            several_recordings=self.several_recordings,
        )
        self.last_unlisted = len(join.unlisted)
        if join.unlisted:
            logger.info(join.unlisted_note())
        last_context, context_tokens = None, None
        kept = 0
        seed = epoch_seed(self.noise_seed, self.epoch if self.epoch is not None else self._reads)
        self._reads += 1
        for spoken, field, perturbation in self._prepared(self.shard_iterable(join.questions), seed, skipped):
            if field is None:
                continue
            fid, question, speaker = spoken.fid, spoken.question, spoken.speaker
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
            if perturbation:
                instance["metadata"].metadata["perturbation"] = perturbation
            kept += 1
            yield instance
        self.last_skipped = skipped
        log_read(join.fid2qid_file, kept, skipped, "spoken questions")

    def _prepare_one(self, spoken, seed: int) -> Tuple[Optional[AudioField], Dict[str, float], Counter]:
        """One recording's `AudioField` (None after a counted skip), perturbed as drawn for
        `(seed, file id)`, its perturbation settings and the skips it counted."""
        skipped: Counter = Counter()
        field = self._load(spoken.audio, skipped)
        perturbation: Dict[str, float] = {}
        if field is not None and self.audio_perturbation is not None:
            perturbation = self.audio_perturbation.draw(question_rng(seed, spoken.fid, "audio_perturbation"))
            try:
                waveform = self.audio_perturbation.apply(field.waveform, field.sample_rate, perturbation)
            except SoxCrashed as err:
                # the same crash on every read of it: read as it is, so that a training goes on and a
                # resumed run reads what a straight one reads
                logger.warning("%s: read unperturbed: %s", spoken.audio, err)
                waveform, perturbation = field.waveform, {}
            except RuntimeError as err:
                raise RuntimeError(f"{spoken.audio}: {err}") from err
            field = AudioField(waveform, field.sample_rate, source=field.source)
        return field, perturbation, skipped

    def _prepared(self, questions: Iterable, seed: int, skipped: Counter) -> Iterator[Tuple]:
        """`(spoken question, field or None, perturbation)` in the order of `questions`; with
        `loading_threads` above 1, the next recordings are prepared in threads meanwhile (at most
        four per thread waiting), and an error is raised where the one-at-a-time read raises it."""
        if self.loading_threads == 1:
            for spoken in questions:
                field, perturbation, counted = self._prepare_one(spoken, seed)
                skipped.update(counted)
                yield spoken, field, perturbation
            return
        window = 4 * self.loading_threads
        with ThreadPoolExecutor(max_workers=self.loading_threads, thread_name_prefix="squad_src") as pool:
            pending: deque = deque()
            try:
                for spoken in questions:
                    pending.append((spoken, pool.submit(self._prepare_one, spoken, seed)))
                    if len(pending) >= window:
                        yield self._collect(pending.popleft(), skipped)
                while pending:
                    yield self._collect(pending.popleft(), skipped)
            finally:
                for _, future in pending:
                    future.cancel()

    @staticmethod
    def _collect(item: Tuple, skipped: Counter) -> Tuple:
        spoken, future = item
        field, perturbation, counted = future.result()
        skipped.update(counted)
        return spoken, field, perturbation

    def set_epoch(self, epoch: int) -> None:
        """The trainer's epoch (counting from 0), which the next read's perturbation is drawn for."""
        self.epoch = int(epoch)

    def _load(self, path: str, skipped: Counter) -> Optional[AudioField]:
        """The prepared recording at `path`, or None after a counted skip."""
        try:
            waveform = self.audio_indexer.prepare(path, refuse_silent=True)
        except AudioTooLong:
            raise
        except (FileNotFoundError, ValueError) as error:
            if isinstance(error, FileNotFoundError):
                reason = MISSING_AUDIO
            elif isinstance(error, SilentAudio):
                reason = "silent audio file"
            else:
                reason = "empty or unreadable audio file"
            raise_or_count(DatasetError(path, without_path(str(error), path), reason=reason), self.skip_invalid, skipped)
            return None
        if waveform is None:
            skipped["audio longer than max_seconds"] += 1
            return None
        return AudioField(waveform, self.audio_indexer.target_sample_rate, source=path)

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
                self._default_speakers = load_speakers(self.speaker_table, self.speakers)[0]
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
        if self.ctc_targets:
            if question is None:
                raise ValueError(f"squad_src: ctc_targets needs the question's text, and question {question_id!r} has none")
            ids = torch.tensor(character_ids(question), dtype=torch.long)
            fields["question_targets"] = TensorField(ids, padding_value=TARGET_PADDING)
        return Instance(fields)
