"""Transcribing a SQuAD-SRC-layout folder of spoken questions (see
`srcframework.data.squad_src_layout`) into a SQuAD-format file whose questions are the ASR
transcripts, for `allennlp transcribe` and `allennlp cascade`.

Every question of the SQuAD file (`--squad`, else `FOLDER/squad_<split>.json` or
`FOLDER/squad.json`) that `fid2qid_<split>.csv` gives a recording in `wavs/` is transcribed; the
others are left out and counted (`no_audio`). Each output question keeps its reference text as
`original_question` and carries `fid`, `speaker`, `country` and `gender` (from `speakers.tsv`,
else SQuAD-SRC's own speaker table).
Questions whose transcript is empty cannot be read as SQuAD questions; they are listed under
`transcription.empty_transcripts` of the output instead of `data` (and count as all-deleted in
the WER).

The work is journaled like `srcframework.jobs.challenge_set`: each finished batch of
`(fid, transcript)` is appended to `OUTPUT.journal.jsonl` and fsynced, a rerun transcribes only
what the journal lacks, the output is written atomically and the journal removed at the end. An
output already written for the same recognizer, split and recordings is reused as it is.

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
from typing import Dict, List, Optional, Tuple

from allennlp.common import Params
from tqdm import tqdm

from srcframework.common.files import text_sha256, write_json_atomic
from srcframework.common.journal import JournalWriter, read_journal
from srcframework.common.paths import check_output_path
from srcframework.common.worker_pool import worker_results
from srcframework.data.errors import DatasetError
from srcframework.data.squad_file import iter_questions, load_squad_json
from srcframework.data.squad_src_layout import (
    AUDIO_FOLDER_NAME,
    DEFAULT_FILE_PATTERN,
    SPEAKER_TABLE_NAME,
    SQUAD_SRC_SPEAKERS,
    Speaker,
    squad_copy_candidates,
    parse_wav_name,
    read_fid2qid,
    read_speaker_table,
)
from srcframework.metrics.text_noise import wer
from srcframework.common.audio import read_valid_wav
from srcframework.speech.engines import SpeechRecognizer

logger = logging.getLogger(__name__)

NORMALIZATION = "lowercase, punctuation deleted (jiwer RemovePunctuation), whitespace collapsed"
UNKNOWN = "unknown"


def parse_recognizer(text) -> dict:
    """A recognizer config from a registered name (`pocketsphinx`), a JSON object string or a dict."""
    if isinstance(text, dict):
        return copy.deepcopy(text)
    text = text.strip()
    if text.startswith("{"):
        try:
            params = json.loads(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"the recognizer config is not valid JSON: {err}") from None
    else:
        params = {"type": text}
    if "type" not in params:
        raise ValueError(f'the recognizer config needs a "type" (one of {SpeechRecognizer.list_available()})')
    if params["type"] not in SpeechRecognizer.list_available():
        raise ValueError(f"unknown recognizer {params['type']!r}; registered: {SpeechRecognizer.list_available()}")
    return params


def find_recordings(src_dir: str, file_pattern: str = DEFAULT_FILE_PATTERN) -> Tuple[Dict[str, Tuple[str, str]], int]:
    """`({fid: (speaker, path)}, files ignored)` of `src_dir/wavs`; names that do not match the
    pattern are counted and logged. A file id recorded twice is an error naming both files."""
    folder = os.path.join(src_dir, AUDIO_FOLDER_NAME)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"no audio folder: {folder}")
    recordings: Dict[str, Tuple[str, str]] = {}
    ignored = 0
    for name in sorted(os.listdir(folder)):
        parsed = parse_wav_name(name, file_pattern)
        if parsed is None:
            if not name.startswith("."):
                logger.warning("ignoring %s: the name does not match %s", os.path.join(folder, name), file_pattern)
            ignored += 1
            continue
        fid, speaker = parsed
        path = os.path.join(folder, name)
        if fid in recordings:
            raise ValueError(f"file id {fid} has two recordings: {recordings[fid][1]} and {path}")
        recordings[fid] = (speaker, path)
    return recordings, ignored


def speaker_table(src_dir: str) -> Dict[str, Speaker]:
    path = os.path.join(src_dir, SPEAKER_TABLE_NAME)
    return read_speaker_table(path) if os.path.exists(path) else dict(SQUAD_SRC_SPEAKERS)


def job_key(recognizer: dict, split: str, items: List[Tuple[str, str, str]]) -> str:
    text = json.dumps({"recognizer": recognizer, "split": split, "items": items}, sort_keys=True)
    return text_sha256(text)[:16]


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
    """One row per `(fid, wav path)` of a batch, in batch order: `{fid, transcript, seconds}`, or
    `{fid, path, error}` for a recording that is missing, empty, unreadable or holds NaN or
    infinite samples (`read_valid_wav`). Recordings of one sample rate go to the recognizer
    together. Bad recordings are returned, not raised, so that the caller can journal the good
    rows of the batch first."""
    params, module, batch = job
    by_rate: Dict[int, List[Tuple[str, object]]] = defaultdict(list)
    seconds, errors = {}, {}
    for fid, path in batch:
        try:
            waveform, rate = read_valid_wav(path)
        except (FileNotFoundError, ValueError) as error:
            errors[fid] = {"fid": fid, "path": path, "error": str(error)}
            continue
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
) -> dict:
    """
    Transcribes the recordings of `src_dir` into the SQuAD file `output_path` (and writes
    `output_path + ".wer.json"`); returns a summary: questions (transcribed), transcribed_now,
    reused (from the journal or an earlier output), no_audio (questions without a recording),
    not_in_squad (recordings whose question the SQuAD file lacks), ignored_files,
    invalid_audio (recordings left out as missing, empty, unreadable or non-finite) and
    invalid_files (`{fid, path, error}` of each), empty_transcripts, audio_seconds and
    asr_seconds (of the recordings transcribed now), real_time_factor (asr_seconds /
    audio_seconds), wer (overall, %).

    A bad recording stops the run with a `DatasetError` naming the file; what was transcribed
    before stays in the journal, so a rerun after the file is repaired redoes nothing else. With
    `skip_invalid` bad recordings are counted, listed and left out, and the run goes on.
    A question id used twice in the SQuAD file is an error naming the id and the file.
    """
    params = parse_recognizer(recognizer)
    check_output_path(output_path, "transcribe output file")
    if workers < 1 or batch_size < 1:
        raise ValueError("workers and batch_size must be at least 1")
    if squad_path is None:
        candidates = squad_copy_candidates(src_dir, split)
        squad_path = next((path for path in candidates if os.path.exists(path)), None)
        if squad_path is None:
            raise FileNotFoundError(f"no SQuAD file: neither {' nor '.join(candidates)} exists; give it with --squad")
    elif not os.path.exists(squad_path):
        raise FileNotFoundError(f"SQuAD file not found: {squad_path}")
    fid2qid_path = os.path.join(src_dir, f"fid2qid_{split}.csv")
    rows = read_fid2qid(fid2qid_path)
    speakers = speaker_table(src_dir)
    recordings, ignored = find_recordings(src_dir, file_pattern)
    dataset = load_squad_json(squad_path)
    # iter_questions refuses a question id used twice, naming the id and the file
    questions = {q.qid: q for q in iter_questions(squad_path, dataset, require_answers=False)}

    by_qid: Dict[str, Tuple[str, str, str]] = {}  # qid -> (fid, speaker, path)
    not_in_squad = 0
    for fid, qid in rows:
        if fid not in recordings:
            continue
        if qid not in questions:
            not_in_squad += 1
            continue
        if qid in by_qid:
            raise ValueError(f"{fid2qid_path}: question {qid} has two recordings ({by_qid[qid][0]} and {fid})")
        by_qid[qid] = (fid, *recordings[fid])
    no_audio = len(questions) - len(by_qid)
    if not by_qid:
        raise ValueError(
            f"{src_dir}: no recording of {fid2qid_path} is of a question of {squad_path} "
            f"({len(rows)} rows, {len(recordings)} recordings)"
        )
    if no_audio:
        logger.warning("%d questions of %s have no recording in %s; they are left out", no_audio, squad_path, src_dir)
    unknown = sorted({s for _, s, _ in by_qid.values() if s not in speakers})
    if unknown:
        logger.warning("speakers %s are not in %s: country and gender %r", unknown, SPEAKER_TABLE_NAME, UNKNOWN)

    items = sorted((fid, qid, os.path.basename(path)) for qid, (fid, _, path) in by_qid.items())
    key = job_key(params, split, items)
    journal_path = f"{output_path}.journal.jsonl"
    done = _previous_output(output_path, key)
    if done is None:
        rows = read_journal(journal_path, key, "another recognizer, split or set of recordings")
        done = {row["fid"]: (row["transcript"], row["seconds"]) for row in rows}
    todo = [(fid, path) for fid, _, path in sorted(by_qid.values()) if fid not in done]
    module = recognizer_module(params)
    batches = [(params, module, todo[k : k + batch_size]) for k in range(0, len(todo), batch_size)]
    started = time.perf_counter()
    audio_now = 0.0
    invalid: List[dict] = []
    if batches:
        header = {"key": key, "recognizer": params, "split": split}
        bar = tqdm(total=len(by_qid), initial=len(by_qid) - len(todo), desc="transcribing", unit="q", disable=not progress)
        with JournalWriter(journal_path, header) as journal, worker_results(_transcribe_batch, batches, workers) as results:
            try:
                for result in results:
                    good = [row for row in result if "error" not in row]
                    journal.append(good)
                    for row in good:
                        done[row["fid"]] = (row["transcript"], row["seconds"])
                        audio_now += row["seconds"]
                    bad = [row for row in result if "error" in row]
                    if bad and not skip_invalid:
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
        logger.warning("%d recordings left out as missing, empty, unreadable or non-finite: %s",
                       len(invalid), ", ".join(row["path"] for row in invalid))
    records = []
    for qid, (fid, speaker, _) in by_qid.items():
        if fid not in done:
            continue  # an invalid recording, left out
        entry = speakers.get(speaker, Speaker(speaker, UNKNOWN, UNKNOWN))
        records.append({"qid": qid, "fid": fid, "speaker": speaker, "country": entry.country,
                        "gender": entry.gender, "reference": questions[qid].question, "transcript": done[fid][0]})
    if not records:
        raise ValueError(f"{src_dir}: every one of the {len(invalid)} recordings to transcribe is invalid; none is left")
    report = wer_report(records)
    meta = {"recognizer": params, "split": split, "source": os.path.abspath(src_dir), "key": key,
            "invalid_audio": invalid}
    output, empty = transcript_dataset(dataset, {r["qid"]: r for r in records}, meta)
    write_json_atomic(output_path, output)
    write_json_atomic(f"{output_path}.wer.json", report)
    if os.path.exists(journal_path):
        os.remove(journal_path)
    return {
        "questions": len(records),
        "transcribed_now": len(todo),
        "reused": len(records) - len(todo),
        "no_audio": no_audio,
        "not_in_squad": not_in_squad,
        "ignored_files": ignored,
        "invalid_audio": len(invalid),
        "invalid_files": invalid,
        "empty_transcripts": empty,
        "audio_seconds": round(audio_now, 3),
        "asr_seconds": round(asr_seconds, 3),
        "real_time_factor": round(asr_seconds / audio_now, 4) if audio_now else None,
        "wer": report["overall"]["wer"],
    }


def _previous_output(output_path: str, key: str) -> Optional[Dict[str, Tuple[str, float]]]:
    """The transcripts of an output this same job wrote before, or None."""
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
    done = {}
    for article in previous.get("data", []):
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                done[qa["fid"]] = (qa["question"], None)
    for qa in meta.get("empty_transcripts", []):
        done[qa["fid"]] = ("", None)
    return done


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
