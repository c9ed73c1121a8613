"""The cascade job behind `allennlp cascade`: spoken questions -> ASR -> a trained text QA model,
scored overall and per accent group in one call.

1. The recordings of the SQuAD-SRC-layout folder SRC_DIR (a `SquadSrcFolder`, read under the
   join rules the `squad_src` reader follows too) are transcribed into `OUT_DIR/transcripts.json`
   (`srcframework.jobs.transcription`: journaled and resumable; a rerun with the same recognizer
   reuses the file). With `--transcripts FILE` an existing `allennlp transcribe` output of
   SRC_DIR is used instead and nothing is transcribed. The cascade parses the transcripts file once
   (its questions and summary).
2. That file is read with the archive's validation dataset reader and answered in batches
   (`Model.forward_on_instances`).
3. `OUT_DIR/predictions.jsonl` gets one line per question (id, fid, prediction, answers, groups,
   question = transcript, original_question); `OUT_DIR/metrics.json` the SQuAD v1.1 EM/F1 overall
   and per country, gender and speaker with the WER of each group, and the transcription summary;
   `report.json`, `report.md` and `f1_by_country.png` come from `srcframework.reports.accent`.

Questions whose transcript is empty, and any the reader skips, are unanswered and score 0.
The output folder is checked before any work, and a run holds the lock `OUT_DIR/cascade.lock`
(`srcframework.common.journal.JournalLock`) while it writes there, with `--transcripts` too: a
second run into the same OUT_DIR stops at once with one line naming the running one, before it
removes anything. The outputs of an earlier run are removed at the
start; the new ones are written once every question is answered, each atomically
(`srcframework.common.files`), `metrics.json` last.
"""
import json
import logging
import os
from typing import List, Optional, Tuple

from allennlp.models.archival import load_archive
from more_itertools import chunked
from tqdm import tqdm

from srcframework.common.errors import InputError
from srcframework.common.files import write_json_atomic, write_lines_atomic
from srcframework.common.journal import JournalLock
from srcframework.common.paths import check_output_path
from srcframework.data.errors import DatasetError
from srcframework.data.squad_src_layout import SquadSrcFolder
from srcframework.jobs.transcription import TranscriptionSettings, audio_sha256, spoken_questions, transcribe
from srcframework.metrics.records import GROUP_KEYS, prediction_record
from srcframework.reports.accent import accent_report, write_accent_report

logger = logging.getLogger(__name__)

TRANSCRIPTS_NAME = "transcripts.json"
LOCK_NAME = "cascade"  # OUT_DIR/cascade.lock: held while a run writes into OUT_DIR
OUTPUT_NAMES = ("predictions.jsonl", "report.json", "report.md", "f1_by_country.png", "metrics.json")
TRANSCRIPT_KEYS = ("id", "fid", "question", "original_question", "answers", "speaker", "country", "gender")


def transcript_questions(path: str) -> Tuple[List[dict], dict]:
    """`(questions, transcription metadata)` of a transcript file written by `transcribe_folder`:
    every question, those with an empty transcript included, in file order (those last). A file
    that is no `transcribe` output, a question without the keys the cascade needs, or a question
    id used twice is a `DatasetError` naming the file (and the id)."""
    try:
        with open(path, encoding="utf-8") as handle:
            dataset = json.load(handle)
    except FileNotFoundError:
        raise DatasetError(path, "transcript file not found") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise DatasetError(path, f"not a JSON transcript file ({error})") from None
    meta = dataset.get("transcription") if isinstance(dataset, dict) else None
    if not isinstance(meta, dict) or not isinstance(dataset.get("data"), list):
        raise DatasetError(path, 'not an `allennlp transcribe` output (no "transcription" section or "data" list)')
    qas = [qa for article in dataset["data"] for paragraph in article["paragraphs"] for qa in paragraph["qas"]]
    qas += list(meta.get("empty_transcripts", []))
    seen = set()
    for qa in qas:
        missing = [key for key in TRANSCRIPT_KEYS if key not in qa]
        if missing:
            raise DatasetError(path, f"the question lacks {missing}; is this an `allennlp transcribe` output?", qa.get("id"))
        if qa["id"] in seen:
            raise DatasetError(path, "the question id is used twice", qa["id"], reason="duplicate question id")
        seen.add(qa["id"])
    return qas, meta


def reuse_transcripts(path: str, folder: SquadSrcFolder) -> Tuple[dict, List[dict], dict]:
    """`(transcription summary, questions, transcription metadata)` of an existing `transcribe`
    output of `folder`, the file read once (`transcript_questions`); a file made from another
    folder, or from recordings that have changed since (their sha256 is not the one the file
    records), is an error."""
    questions, meta = transcript_questions(path)
    source = meta.get("source")
    if source is not None and os.path.realpath(source) != os.path.realpath(folder.folder):
        raise DatasetError(path, f"these are transcripts of {source}, not of {os.path.abspath(folder.folder)}")
    check_recordings(path, meta, questions, folder)
    empty = len(meta.get("empty_transcripts", []))
    summary = {
        "transcripts_file": os.path.abspath(path),
        "questions": len(questions),
        "transcribed_now": 0,
        "reused": len(questions),
        "empty_transcripts": empty,
        "invalid_audio": len(meta.get("invalid_audio", [])),
    }
    return summary, questions, meta


def check_recordings(path: str, meta: dict, questions: List[dict], folder: SquadSrcFolder) -> None:
    """A `DatasetError` naming the transcript file and the recording when a question's recording
    in `folder` is missing or is not the one transcribed (another sha256). A file that records no
    hashes (written before they were recorded) cannot be checked: a warning says so."""
    hashes = meta.get("audio_sha256")
    if not isinstance(hashes, dict):
        logger.warning("%s records no sha256 of its recordings: cannot check that they are those of %s",
                       path, folder.folder)
        return
    recordings = {spoken.fid: spoken.audio for spoken in spoken_questions(folder, skip_invalid=True).questions}
    for qa in questions:
        recording = recordings.get(qa["fid"])
        if recording is None:
            raise DatasetError(path, f"{folder.folder} has no recording {qa['fid']} of the question", qa["id"])
        if audio_sha256(recording) != hashes.get(qa["fid"]):
            raise DatasetError(
                path, f"{recording} is not the recording that was transcribed (its sha256 differs); "
                      "transcribe the folder again", qa["id"],
            )


def answer_file(
    archive_path: str, data_path: str, cuda_device: int = -1, batch_size: int = 32, progress: bool = True
) -> dict:
    """`{question id: predicted answer}` of a trained model on a SQuAD-format file read with the
    archive's validation dataset reader."""
    archive = load_archive(archive_path, cuda_device=cuda_device)
    model = archive.model
    model.eval()
    instances = list(archive.validation_dataset_reader.read(data_path))
    answers = {}
    bar = tqdm(total=len(instances), desc="answering", unit="q", disable=not progress)
    for batch in chunked(instances, batch_size):
        for output in model.forward_on_instances(batch):
            if "id" not in output or "best_span_str" not in output:
                raise InputError(
                    f"{archive_path}: the model's outputs lack id or best_span_str (keys {sorted(output)}); "
                    "the cascade needs an extractive QA model such as span_qa"
                )
            answers[output["id"]] = output["best_span_str"]
        bar.update(len(batch))
    bar.close()
    return answers


def run_cascade(
    folder: SquadSrcFolder,
    archive_path: str,
    out_dir: str,
    settings: TranscriptionSettings = TranscriptionSettings(),
    cuda_device: int = -1,
    predict_batch_size: int = 32,
    transcripts_path: Optional[str] = None,
) -> dict:
    """
    Transcribe `folder` (or, with `transcripts_path`, reuse a `transcribe` output of it), answer
    and score (see the module docstring); returns the metrics.

    # Parameters

    folder : `SquadSrcFolder`
    archive_path : `str`
        The trained text QA model.
    out_dir : `str`
    settings : `TranscriptionSettings`, optional
        How to transcribe; `settings.progress` also shows the answering's progress.
    cuda_device : `int`, optional (default = `-1`)
        The QA model's GPU (-1: CPU).
    predict_batch_size : `int`, optional (default = `32`)
        Questions per QA forward pass.
    transcripts_path : `str`, optional
        An existing `transcribe` output of `folder` to answer instead of transcribing.
    """
    check_output_path(out_dir, "cascade output folder", is_dir=True)
    if not os.path.isfile(archive_path):
        raise FileNotFoundError(f"model archive not found: {archive_path}")
    reused = reuse_transcripts(transcripts_path, folder) if transcripts_path is not None else None
    os.makedirs(out_dir, exist_ok=True)
    with JournalLock(os.path.join(out_dir, LOCK_NAME), what=f"the cascade output folder {out_dir}"):
        return _answer_and_score(folder, archive_path, out_dir, settings, cuda_device, predict_batch_size,
                                 transcripts_path, reused)


def _answer_and_score(
    folder: SquadSrcFolder,
    archive_path: str,
    out_dir: str,
    settings: TranscriptionSettings,
    cuda_device: int,
    predict_batch_size: int,
    transcripts_path: Optional[str],
    reused: Optional[Tuple[dict, List[dict], dict]],
) -> dict:
    """The work of `run_cascade` once the run holds the lock of `out_dir`; `reused`: what
    `reuse_transcripts` read of `transcripts_path` (None: transcribe into OUT_DIR, then read that
    file once)."""
    for name in OUTPUT_NAMES:  # an earlier run's results must not pass for this run's
        if os.path.exists(os.path.join(out_dir, name)):
            logger.info("removing %s of an earlier run", os.path.join(out_dir, name))
            os.remove(os.path.join(out_dir, name))
    if reused is None:
        transcripts_path = os.path.join(out_dir, TRANSCRIPTS_NAME)
        transcription = transcribe(folder, transcripts_path, settings)
        questions, meta = transcript_questions(transcripts_path)
    else:
        transcription, questions, meta = reused
    readable = len(questions) - transcription["empty_transcripts"]
    predicted = {}
    if readable:
        predicted = answer_file(archive_path, transcripts_path, cuda_device, predict_batch_size, settings.progress)
    records = []
    for qa in questions:
        records.append(prediction_record(
            qa["id"],
            predicted.get(qa["id"]),
            [answer["text"] for answer in qa["answers"]],
            {key: qa[key] for key in GROUP_KEYS},
            qa["question"],
            qa["original_question"],
            fid=qa["fid"],
        ))
    unanswered = sum(record["prediction"] is None for record in records)
    if unanswered:
        logger.warning("%d of %d questions have no answer (empty transcript or skipped by the reader); they score 0",
                       unanswered, len(records))
    report = accent_report(records)
    write_lines_atomic(os.path.join(out_dir, "predictions.jsonl"), records)
    write_accent_report(report, out_dir)
    metrics = {
        "src_dir": os.path.abspath(folder.folder),
        "archive": os.path.abspath(archive_path),
        "recognizer": meta.get("recognizer"),
        "split": meta.get("split", folder.split),
        "questions": len(records),
        "unanswered": unanswered,
        "em": report["overall"]["em"],
        "f1": report["overall"]["f1"],
        "wer": report["overall"].get("wer"),
        "by_country": report["by_country"],
        "by_gender": report["by_gender"],
        "by_speaker": report["by_speaker"],
        "f1_range": report["f1_range"],
        "transcription": transcription,
    }
    write_json_atomic(os.path.join(out_dir, "metrics.json"), metrics, indent=1)
    return metrics
