"""Transcribing a SQuAD-SRC-layout folder of spoken questions (see
`srcframework.data.squad_src_layout`) into a SQuAD-format file whose questions are the ASR
transcripts, for `allennlp transcribe` and `allennlp cascade`.

The folder is read through `SquadSrcFolder` (`spoken_questions`), under the join rules the
`squad_src` reader follows too, in their `partial` form: every question of the SQuAD file
(`--squad`, else `FOLDER/squad_<split>.json` or `FOLDER/squad.json`) that `fid2qid_<split>.csv`
gives a recording in `wavs/` is transcribed; the others are left out and counted (`no_audio`), and
so are rows whose question the SQuAD file lacks (`not_in_squad`). Each output question keeps its
reference text as `original_question` and carries `fid`, `speaker`, `country` and `gender` (from
`speakers.tsv`, else SQuAD-SRC's own speaker table).
Questions whose transcript is empty cannot be read as SQuAD questions; they are listed under
`transcription.empty_transcripts` of the output instead of `data` (and count as all-deleted in
the WER).

The work is journaled like `srcframework.jobs.challenge_set`: each finished batch of
`(fid, transcript)` is appended to `OUTPUT.journal.jsonl` and fsynced, a rerun transcribes only
what the journal lacks, the output is written atomically and the journal removed at the end. An
output already written for the same recognizer, split and recordings is reused.

What a transcript was made from is recorded and checked: the job's key covers the recognizer
config, the fingerprints of the files and folders it names (a model folder), the split and the
recordings' names; each journal row and the output (`transcription.audio_sha256`) hold the sha256
of every recording transcribed. A rerun reuses a transcript only when its recording's sha256 is
still the same, so another folder with the same file ids, or a recording replaced in place, is
transcribed again (and counted as such); the output names the folder it was made from
(`transcription.source`).

A recording that is missing, empty, unreadable, holds NaN or infinite samples, or is silent
(`srcframework.common.audio.silence`: all zero, or no sample reaching -80 dBFS; a recognizer would
make up a word for it) stops the run naming the file, or with `skip_invalid` is counted and listed.

WER (`OUTPUT.wer.json`) is `srcframework.metrics.text_noise.wer`: corpus-level jiwer WER in %,
after lowercasing, deleting punctuation (`Tesla's` -> `teslas`) and collapsing whitespace, over
all questions, per country, per gender and per speaker.
"""
import copy
import importlib
import json
import logging
import os
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from allennlp.common import Params
from tqdm import tqdm

from srcframework.common.audio import MAX_QUESTION_SECONDS, cut_to_limit, read_valid_wav
from srcframework.common.errors import InputError, without_path
from srcframework.common.files import file_sha256, named_files, text_sha256, write_json_atomic
from srcframework.common.journal import JournalWriter, locks_journal, read_journal
from srcframework.common.paths import check_output_path
from srcframework.common.worker_pool import worker_results
from srcframework.data.errors import DatasetError
from srcframework.data.squad_src_layout import (
    DEFAULT_FILE_PATTERN,
    UNKNOWN_QUESTION,
    SquadSrcFolder,
    SquadSrcJoin,
)
from srcframework.metrics.text_noise import wer
from srcframework.speech.engines import SpeechRecognizer

logger = logging.getLogger(__name__)

NORMALIZATION = "lowercase, punctuation deleted (jiwer RemovePunctuation), whitespace collapsed"


@dataclass(frozen=True)
class TranscriptionSettings:
    """
    How `transcribe` runs, apart from which folder it reads.

    # Parameters

    recognizer : `Any`, optional (default = `"pocketsphinx"`)
        A registered recognizer name, a JSON object string or a dict (`parse_recognizer`).
    workers : `int`, optional (default = `1`)
        Worker processes.
    batch_size : `int`, optional (default = `8`)
        Recordings per recognizer call.
    skip_invalid : `bool`, optional (default = `False`)
        Bad recordings and broken join rules are counted and left out instead of stopping the run.
    progress : `bool`, optional (default = `True`)
    max_seconds : `float`, optional (default = `15.0`)
        The recognizer hears the first `max_seconds` of a longer recording (the cut is logged with
        the file and both lengths); `None` for all of it. The default is
        `common.audio.MAX_QUESTION_SECONDS`, the `squad_src` reader's limit too.
    """

    recognizer: Any = "pocketsphinx"
    workers: int = 1
    batch_size: int = 8
    skip_invalid: bool = False
    progress: bool = True
    max_seconds: Optional[float] = MAX_QUESTION_SECONDS


def parse_recognizer(text) -> dict:
    """A recognizer config from a registered name (`pocketsphinx`), a JSON object string or a dict."""
    if isinstance(text, dict):
        return copy.deepcopy(text)
    text = text.strip()
    if text.startswith("{"):
        try:
            params = json.loads(text)
        except json.JSONDecodeError as err:
            raise InputError(f"the recognizer config is not valid JSON: {err}") from None
    else:
        params = {"type": text}
    if "type" not in params:
        raise InputError(f'the recognizer config needs a "type" (one of {SpeechRecognizer.list_available()})')
    if params["type"] not in SpeechRecognizer.list_available():
        raise InputError(f"unknown recognizer {params['type']!r}; registered: {SpeechRecognizer.list_available()}")
    return params


def spoken_questions(folder: SquadSrcFolder, skip_invalid: bool = False, several_recordings: bool = False) -> SquadSrcJoin:
    """The questions `transcribe` transcribes: the folder's `partial` join (a row without a
    recording, or whose question the SQuAD file lacks, is a counted skip), questions without
    answers included; with `several_recordings`, every recording of a question read by several voices."""
    return folder.join(skip_invalid=skip_invalid, partial=True, require_answers=False, several_recordings=several_recordings)


def job_key(recognizer: dict, split: str, items: List[Tuple[str, str, str]], files: Optional[dict] = None,
            max_seconds: Optional[float] = MAX_QUESTION_SECONDS) -> str:
    """The key of a transcription job: the recognizer config, the fingerprints of the `files` it
    names (left out when there are none), the split, the `(fid, qid, file name)` items and the
    `max_seconds` heard (left out when it is the default, so earlier keys stay as they were)."""
    payload = {"recognizer": recognizer, "split": split, "items": items}
    if files:
        payload["recognizer_files"] = files
    if max_seconds != MAX_QUESTION_SECONDS:
        payload["max_seconds"] = max_seconds
    return text_sha256(json.dumps(payload, sort_keys=True))[:16]


def audio_sha256(path: str) -> Optional[str]:
    """The sha256 of a recording's bytes; None when it cannot be read (reading it for the
    recognizer then names the problem)."""
    try:
        return file_sha256(path)
    except OSError:
        return None


_WORKER_RECOGNIZER: Optional[SpeechRecognizer] = None
_WORKER_PARAMS: Optional[dict] = None


def recognizer_module(params: dict) -> str:
    """The module that registers the recognizer type, imported by worker processes (so recognizers
    of plugins and `--include-package` modules work there too)."""
    cls, _ = SpeechRecognizer.resolve_class_name(params["type"])
    return cls.__module__


def _recognizer(params: dict, module: str) -> SpeechRecognizer:
    global _WORKER_RECOGNIZER, _WORKER_PARAMS
    if _WORKER_RECOGNIZER is None or _WORKER_PARAMS != params:
        importlib.import_module(module)
        _WORKER_RECOGNIZER = SpeechRecognizer.from_params(Params(copy.deepcopy(params)))
        _WORKER_PARAMS = copy.deepcopy(params)
    return _WORKER_RECOGNIZER


def _transcribe_batch(job: Tuple[dict, str, List[Tuple[str, str]]]) -> List[dict]:
    """One row per `(fid, wav path)` of a batch, in batch order: `{fid, transcript, seconds}` (the
    seconds heard: at most `max_seconds`), or
    `{fid, path, error}` for a recording that is missing, empty, unreadable or holds NaN or
    infinite samples or is silent (`read_valid_wav`). Recordings of one sample rate go to the recognizer
    together. Bad recordings are returned, not raised, so that the caller can journal the good
    rows of the batch first."""
    params, module, batch, max_seconds = job
    by_rate: Dict[int, List[Tuple[str, object]]] = defaultdict(list)
    seconds, errors = {}, {}
    for fid, path in batch:
        try:
            waveform, rate = read_valid_wav(path, refuse_silent=True)
        except (FileNotFoundError, ValueError) as error:
            errors[fid] = {"fid": fid, "path": path, "error": without_path(str(error), path)}  # the path once
            continue
        waveform = cut_to_limit(waveform, rate, max_seconds, path)
        by_rate[rate].append((fid, waveform))
        seconds[fid] = waveform.size / rate
    transcripts = {}
    if by_rate:
        recognizer = _recognizer(params, module)
    for rate, items in by_rate.items():
        texts = recognizer.transcribe([w for _, w in items], rate)
        if len(texts) != len(items):
            raise RuntimeError(f"the recognizer returned {len(texts)} transcripts for {len(items)} recordings")
        transcripts.update({fid: " ".join(str(text).split()) for (fid, _), text in zip(items, texts)})
    return [
        errors[fid] if fid in errors else {"fid": fid, "transcript": transcripts[fid], "seconds": seconds[fid]}
        for fid, _ in batch
    ]


def wer_report(records: List[dict]) -> dict:
    """WER (%) overall and per country, gender and speaker of records with `reference`,
    `transcript`, `country`, `gender` and `speaker`."""

    def score(rows):
        refs = [r["reference"] for r in rows]
        words = sum(len(r.split()) for r in refs)
        return {"questions": len(rows), "reference_words": words, "wer": wer(refs, [r["transcript"] for r in rows])}

    report = {"normalization": NORMALIZATION, "overall": score(records) if records else None}
    for key in ("country", "gender", "speaker"):
        groups = defaultdict(list)
        for record in records:
            groups[record[key]].append(record)
        report[f"by_{key}"] = {name: score(rows) for name, rows in sorted(groups.items())}
    return report


def transcribe_folder(
    src_dir: str,
    output_path: str,
    recognizer="pocketsphinx",
    split: str = "dev",
    squad_path: Optional[str] = None,
    workers: int = 1,
    batch_size: int = 8,
    file_pattern: str = DEFAULT_FILE_PATTERN,
    progress: bool = True,
    skip_invalid: bool = False,
    max_seconds: Optional[float] = MAX_QUESTION_SECONDS,
) -> dict:
    """`transcribe` of the folder `src_dir` (its `split`, `squad_path` and `file_pattern`: see
    `SquadSrcFolder`) with these settings (see `TranscriptionSettings`)."""
    folder = SquadSrcFolder(src_dir, split=split, squad_file=squad_path, file_pattern=file_pattern)
    settings = TranscriptionSettings(recognizer, workers, batch_size, skip_invalid, progress, max_seconds)
    return transcribe(folder, output_path, settings)


def journal_path_of(output_path: str) -> str:
    """The journal of the transcript file `output_path`."""
    return f"{output_path}.journal.jsonl"


@locks_journal(lambda call: journal_path_of(call.arguments["output_path"]))
def transcribe(folder: SquadSrcFolder, output_path: str, settings: TranscriptionSettings = TranscriptionSettings()) -> dict:
    """
    Transcribes the recordings of `folder` (`spoken_questions`) into the SQuAD file `output_path`
    (and writes `output_path + ".wer.json"`); returns a summary: questions (transcribed),
    transcribed_now, reused (from the journal or an earlier output), no_audio (questions without
    a recording), not_in_squad (rows whose question the SQuAD file lacks), skipped (every row or
    file the join left out, by reason), ignored_files (files in `wavs/` that are not audio),
    invalid_audio (recordings left out as missing, empty, unreadable, non-finite or silent) and
    invalid_files (`{fid, path, error}` of each), changed_audio (transcripts of an earlier run not
    reused because their recording changed), empty_transcripts, audio_seconds and
    asr_seconds (of the recordings transcribed now), real_time_factor (asr_seconds /
    audio_seconds), wer (overall, %).

    A bad recording stops the run with a `DatasetError` naming the file; what was transcribed
    before stays in the journal, so a rerun after the file is repaired redoes nothing else. With
    `settings.skip_invalid` bad recordings and broken join rules are counted, listed and left out,
    and the run goes on. A question id used twice in the SQuAD file is an error naming the id and
    the file.
    """
    params = parse_recognizer(settings.recognizer)
    check_output_path(output_path, "transcribe output file")
    if settings.workers < 1 or settings.batch_size < 1:
        raise InputError("workers and batch_size must be at least 1")
    join = spoken_questions(folder, settings.skip_invalid)
    if not join.questions:
        raise InputError(
            f"{folder.folder}: no recording of {join.fid2qid_file} is of a question of {join.squad_file} "
            f"({join.rows} rows, {join.recordings} recordings)"
        )
    if join.skipped:
        logger.warning("%s: left out %s", folder.folder, dict(join.skipped))
    if join.ignored_files:
        logger.info("ignoring %d files that are not audio: %s", len(join.ignored_files), ", ".join(join.ignored_files))
    no_audio = join.squad_questions - len(join.questions)
    if no_audio:
        logger.warning("%d questions of %s have no recording in %s; they are left out",
                       no_audio, join.squad_file, folder.folder)

    items = sorted((s.fid, s.question.qid, os.path.basename(s.audio)) for s in join.questions)
    recognizer_files = named_files(params)
    key = job_key(params, join.split, items, recognizer_files, settings.max_seconds)
    journal_path = journal_path_of(output_path)
    audio = {s.fid: audio_sha256(s.audio) for s in join.questions}
    earlier = _previous_output(output_path, key)
    if earlier is None:
        earlier = read_journal(journal_path, key, "another recognizer, split or set of recordings")
    done: Dict[str, Tuple[str, Optional[float]]] = {}
    changed = set()
    for row in earlier:
        if row["fid"] not in audio:
            continue
        if row.get("sha256") is not None and row["sha256"] == audio[row["fid"]] and not _longer_than(row, settings):
            done[row["fid"]] = (row["transcript"], row["seconds"])
            changed.discard(row["fid"])
        elif row["fid"] not in done:
            changed.add(row["fid"])
    if changed:
        logger.warning("%d recordings are not those an earlier run transcribed into %s (another folder, or replaced); "
                       "they are transcribed again", len(changed), output_path)
    reused = len(done)
    todo = sorted((s.fid, s.audio) for s in join.questions if s.fid not in done)
    module = recognizer_module(params)
    batch_size, progress = settings.batch_size, settings.progress
    batches = [(params, module, todo[k : k + batch_size], settings.max_seconds) for k in range(0, len(todo), batch_size)]
    started = time.perf_counter()
    audio_now = 0.0
    transcribed_now = 0
    invalid: List[dict] = []
    if batches:
        header = {"key": key, "recognizer": params, "split": join.split, "source": os.path.abspath(folder.folder)}
        total = len(join.questions)
        bar = tqdm(total=total, initial=total - len(todo), desc="transcribing", unit="q", disable=not progress)
        pool = worker_results(_transcribe_batch, batches, settings.workers)
        with JournalWriter(journal_path, header) as journal, pool as results:
            try:
                for result in results:
                    good = [dict(row, sha256=audio[row["fid"]]) for row in result if "error" not in row]
                    journal.append(good)
                    for row in good:
                        done[row["fid"]] = (row["transcript"], row["seconds"])
                        audio_now += row["seconds"]
                    transcribed_now += len(good)
                    bad = [row for row in result if "error" in row]
                    if bad and not settings.skip_invalid:
                        raise DatasetError(
                            bad[0]["path"],
                            f"{bad[0]['error']}; the {len(done)} transcripts done so far are kept in {journal_path} "
                            "(rerun after repairing the file, or with --skip-invalid to leave bad recordings out)",
                            reason="bad audio file",
                        )
                    for row in bad:
                        logger.warning("leaving out %s: %s", row["path"], row["error"])
                    invalid.extend(bad)
                    bar.update(len(result))
            finally:
                bar.close()
    asr_seconds = time.perf_counter() - started

    invalid.sort(key=lambda row: row["fid"])
    if invalid:
        logger.warning("%d recordings left out as missing, empty, unreadable, non-finite or silent: %s",
                       len(invalid), ", ".join(row["path"] for row in invalid))
    records = []
    for spoken in join.questions:
        if spoken.fid not in done:
            continue  # an invalid recording, left out
        speaker = spoken.speaker
        records.append({"qid": spoken.question.qid, "fid": spoken.fid, "speaker": speaker.speaker,
                        "country": speaker.country, "gender": speaker.gender,
                        "reference": spoken.question.question, "transcript": done[spoken.fid][0]})
    if not records:
        raise InputError(
            f"{folder.folder}: every one of the {len(invalid)} recordings to transcribe is invalid; none is left"
        )
    report = wer_report(records)
    meta = {"recognizer": params, "split": join.split, "source": os.path.abspath(folder.folder), "key": key,
            "max_seconds": settings.max_seconds,
            "invalid_audio": invalid, "audio_sha256": {r["fid"]: audio[r["fid"]] for r in records}}
    if recognizer_files:
        meta["recognizer_files"] = recognizer_files
    output, empty = transcript_dataset(join.dataset, {r["qid"]: r for r in records}, meta)
    write_json_atomic(output_path, output)
    write_json_atomic(f"{output_path}.wer.json", report)
    if os.path.exists(journal_path):
        os.remove(journal_path)
    return {
        "questions": len(records),
        "transcribed_now": transcribed_now,
        "reused": reused,
        "no_audio": no_audio,
        "not_in_squad": join.skipped[UNKNOWN_QUESTION],
        "skipped": dict(join.skipped),
        "ignored_files": len(join.ignored_files),
        "invalid_audio": len(invalid),
        "invalid_files": invalid,
        "changed_audio": len(changed),
        "empty_transcripts": empty,
        "audio_seconds": round(audio_now, 3),
        "asr_seconds": round(asr_seconds, 3),
        "real_time_factor": round(asr_seconds / audio_now, 4) if audio_now else None,
        "wer": report["overall"]["wer"],
    }


def _longer_than(row: dict, settings: TranscriptionSettings) -> bool:
    """Whether a journal row heard more than `settings.max_seconds` (made before the limit applied to
    `transcribe`): such a recording is transcribed again."""
    limit = settings.max_seconds
    return limit is not None and row.get("seconds") is not None and row["seconds"] > limit + 1e-6


def _previous_output(output_path: str, key: str) -> Optional[List[dict]]:
    """The rows (`fid`, `transcript`, `seconds`, `sha256` of the recording) of an output this same
    job (`key`) wrote before, or None. An output that records no recording hashes (an older one)
    gives rows without `sha256`, which are not reused."""
    if not os.path.exists(output_path):
        return None
    try:
        with open(output_path, encoding="utf-8") as handle:
            previous = json.load(handle)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    meta = previous.get("transcription") if isinstance(previous, dict) else None
    if not isinstance(meta, dict) or meta.get("key") != key:
        return None
    hashes = meta.get("audio_sha256") if isinstance(meta.get("audio_sha256"), dict) else {}
    qas = [qa for article in previous.get("data", []) for paragraph in article["paragraphs"] for qa in paragraph["qas"]]
    qas += [dict(qa, question="") for qa in meta.get("empty_transcripts", [])]
    return [{"fid": qa["fid"], "transcript": qa["question"], "seconds": None, "sha256": hashes.get(qa["fid"])}
            for qa in qas]


def transcript_dataset(dataset: dict, records: Dict[str, dict], meta: dict) -> Tuple[dict, int]:
    """`(the SQuAD dataset with transcripts as questions, number of empty transcripts)`: only the
    recorded questions; those with an empty transcript go to `transcription.empty_transcripts`."""
    out = {"version": dataset.get("version", "1.1"), "transcription": dict(meta, empty_transcripts=[]), "data": []}
    for article in dataset["data"]:
        paragraphs = []
        for paragraph in article["paragraphs"]:
            qas = []
            for qa in paragraph["qas"]:
                record = records.get(qa["id"])
                if record is None:
                    continue
                qa = dict(qa, question=record["transcript"], original_question=record["reference"], fid=record["fid"],
                          speaker=record["speaker"], country=record["country"], gender=record["gender"])
                if qa["question"].strip():
                    qas.append(qa)
                else:
                    out["transcription"]["empty_transcripts"].append(qa)
            if qas:
                paragraphs.append(dict(paragraph, qas=qas))
        if paragraphs:
            out["data"].append(dict(article, paragraphs=paragraphs))
    return out, len(out["transcription"]["empty_transcripts"])
