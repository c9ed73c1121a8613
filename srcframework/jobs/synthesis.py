"""Reading the questions of a SQuAD-format file aloud with offline voices into a SQuAD-SRC-layout
folder (see `srcframework.data.squad_src_layout`), for `allennlp synthesize-speech`.

Question n (counting from 1, file order, first `limit` questions) gets the file id
`<SPLIT>00000n` (`DEV000001`) and one speaker: with no seed the voices take turns (round-robin in
file order); with a seed the same balanced turns are dealt over a seeded shuffle of the questions.
The text read is each question's `question` field. Waveforms are written as 16 kHz mono 16-bit WAV
(8 kHz voices are resampled), or with `audio_format="flac"` as FLAC: the same samples in 56% of
the space, but 5 ms to read a recording against WAV's 0.3 ms (`benchmarks/audio_storage.py`), which
a training reads every epoch; WAV stays the default while the disk holds it (1.2 GB a voice for
the 9,380 questions of the CPU-scale training split).

The job is resumable: each WAV is written atomically, and a rerun skips every WAV that exists and
is readable, so a killed run loses nothing and redoes nothing. `synthesis_<split>.json` records the
configuration first (a rerun with another configuration into the same folder is refused, and so is
a folder whose `wavs/` holds recordings under this run's names without that file: nothing says what
they were made from) and the summary at the end; `fid2qid_<split>.csv`, `speakers.tsv` and `squad.json` (the input restricted to
the synthesised questions) are written atomically once every WAV exists, so a folder with its
fid2qid file is complete. Several splits can share a folder (and its speaker table): where
`squad.json` already holds another split's questions, the copy goes to `squad_<split>.json`, the
name the `squad_src` reader and `transcribe` look for first. Temporary files that a killed run
leaves in `wavs/` are removed by the next run of its split.

A run holds the lock `synthesis_<split>.json.lock` (`srcframework.common.journal.JournalLock`)
while it works: a second run of the same split into the same folder stops at once with one line
naming the running one (its process id, start time and command line), before it removes any
temporary file or gives any advice about the folder; a lock left by a killed run is taken over.
"""
import glob
import json
import logging
import os
import random
import re
import time
from collections import Counter
from typing import Dict, List, Optional, Sequence, Tuple

import soundfile
from tqdm import tqdm

from srcframework.common.audio import resample, write_wav_atomic
from srcframework.common.errors import InputError
from srcframework.common.files import text_sha256, write_json_atomic
from srcframework.common.journal import JournalLock
from srcframework.common.worker_pool import worker_results
from srcframework.data.squad_file import SquadQuestion, iter_questions, load_squad_json
from srcframework.data.squad_src_layout import (
    Speaker,
    SquadSrcFolder,
    read_speaker_table,
    wav_name,
    write_fid2qid,
    write_speaker_table,
)
from srcframework.speech.voices import Voice, parse_voices

logger = logging.getLogger(__name__)

SAMPLE_RATE = 16000
AUDIO_FORMATS = {"wav": ".wav", "flac": ".flac"}  # --audio-format: the suffix of the recordings


def manifest_name(split: str) -> str:
    return f"synthesis_{split}.json"


def assign_speakers(count: int, voices: Sequence[Voice], seed: Optional[int] = None) -> List[Voice]:
    """The voice of each of `count` questions: round-robin in file order, or (with a seed)
    round-robin over a seeded shuffle of the questions; either way every voice reads
    `count // len(voices)` or one more."""
    order = list(range(count))
    if seed is not None:
        random.Random(seed).shuffle(order)
    assigned: List[Optional[Voice]] = [None] * count
    for turn, question in enumerate(order):
        assigned[question] = voices[turn % len(voices)]
    return assigned  # type: ignore[return-value]


def restrict_dataset(dataset: dict, keep_ids: set) -> dict:
    """The dataset with only the questions whose ids are in `keep_ids` (empty paragraphs and
    articles dropped)."""
    out = dict(dataset, data=[])
    for article in dataset["data"]:
        paragraphs = []
        for paragraph in article["paragraphs"]:
            qas = [qa for qa in paragraph["qas"] if qa["id"] in keep_ids]
            if qas:
                paragraphs.append(dict(paragraph, qas=qas))
        if paragraphs:
            out["data"].append(dict(article, paragraphs=paragraphs))
    return out


def squad_copy_path(folder: SquadSrcFolder, squad_copy: dict) -> str:
    """`OUT_DIR/squad.json`, unless that holds other questions (another split's): then
    `OUT_DIR/squad_<split>.json`."""
    split_path, shared_path = folder.squad_candidates()
    if os.path.exists(shared_path):
        with open(shared_path, encoding="utf-8") as handle:
            if json.load(handle) != squad_copy:
                return split_path
    return shared_path


def wav_is_done(path: str) -> bool:
    """Whether `path` is a readable 16 kHz mono WAV with samples (an earlier run's finished file)."""
    if not os.path.isfile(path):
        return False
    try:
        info = soundfile.info(path)
    except (soundfile.LibsndfileError, RuntimeError) as error:
        logger.warning("redoing unreadable %s: %s", path, error)
        return False
    return info.samplerate == SAMPLE_RATE and info.channels == 1 and info.frames > 0


_WORKER_SYNTHESIZERS: Dict[str, object] = {}


def _synthesize(job: Tuple[str, str, str, str]) -> Tuple[str, str, float, float]:
    """Synthesises one question and writes its recording (WAV or FLAC, by the path's suffix):
    `(fid, voice, audio seconds, engine seconds)`; 0 audio seconds (nothing written) when the voice
    said nothing."""
    fid, voice_name, text, path = job
    synthesizer = _WORKER_SYNTHESIZERS.get(voice_name)
    if synthesizer is None:
        synthesizer = _WORKER_SYNTHESIZERS[voice_name] = parse_voices([voice_name])[0].build()
    start = time.perf_counter()
    waveform, rate = synthesizer.synthesize(text)
    waveform = resample(waveform, rate, SAMPLE_RATE)
    if waveform.size:
        write_wav_atomic(path, waveform, SAMPLE_RATE, format="FLAC" if path.endswith(".flac") else "WAV")
    return fid, voice_name, waveform.size / SAMPLE_RATE, time.perf_counter() - start


def _check_split(split: str) -> None:
    if not re.fullmatch(r"[A-Za-z]+", split or ""):
        raise InputError(f"split must be letters only (it starts every file id, e.g. DEV000001), got {split!r}")


def _merge_speakers(path: str, voices: Sequence[Voice]) -> List[Speaker]:
    """The speaker table with `voices` added to an existing one (another split's); a speaker id that
    the existing table gives another country, gender or voice is an error naming the file."""
    table = read_speaker_table(path) if os.path.exists(path) else {}
    for voice in voices:
        new = Speaker(voice.speaker, voice.country, voice.gender, voice.name)
        old = table.get(voice.speaker)
        if old is not None and old != new:
            raise InputError(f"{path} already describes {voice.speaker} as {old}, not as {new}; use another folder")
        table[voice.speaker] = new
    return [table[name] for name in sorted(table)]


def synthesize_questions(
    squad_path: str,
    out_dir: str,
    voices=None,
    split: str = "dev",
    workers: int = 1,
    limit: Optional[int] = None,
    seed: Optional[int] = None,
    progress: bool = True,
    audio_format: str = "wav",
) -> dict:
    """
    Reads the questions of `squad_path` aloud into the SQuAD-SRC-layout folder `out_dir` and
    returns a summary: questions, synthesized_now (engine calls made by this run), reused (WAVs
    an earlier run made), no_speech (ids of questions a voice said nothing for: left out of
    fid2qid), audio_seconds (made now), total_audio_seconds, wall_seconds,
    audio_seconds_per_second (made now per wall second), per_speaker (questions per speaker).
    """
    _check_split(split)
    if audio_format not in AUDIO_FORMATS:
        raise InputError(f"audio format must be one of {', '.join(AUDIO_FORMATS)}, got {audio_format!r}")
    voices = parse_voices(voices if voices is not None else "flite:kal16,flite:awb,flite:rms,flite:slt")
    if workers < 1:
        raise InputError(f"workers must be at least 1, got {workers}")
    if limit is not None and limit < 1:
        raise InputError(f"limit must be at least 1, got {limit}")
    started = time.perf_counter()
    for voice in voices:  # fail early: missing programs, voices this flite or espeak-ng lacks
        _WORKER_SYNTHESIZERS.setdefault(voice.name, voice.build())
    dataset = load_squad_json(squad_path)
    questions = list(iter_questions(squad_path, dataset, require_answers=False))
    ids = [q.qid for q in questions]
    if len(set(ids)) != len(ids):
        duplicated = sorted(qid for qid, n in Counter(ids).items() if n > 1)[:5]
        raise InputError(f"{squad_path}: question ids are not unique (e.g. {duplicated})")
    questions = questions[:limit] if limit is not None else questions
    speakers = assign_speakers(len(questions), voices, seed)
    plan = [(f"{split.upper()}{n:06d}", q, v) for n, (q, v) in enumerate(zip(questions, speakers), 1)]

    config = {
        "split": split,
        "voices": [v.name for v in voices],
        "seed": seed,
        "limit": limit,
        "sample_rate": SAMPLE_RATE,
        **({"audio_format": audio_format} if audio_format != "wav" else {}),
        "questions": text_sha256(json.dumps([(q.qid, q.question) for q in questions])),
    }
    folder = SquadSrcFolder(out_dir, split)
    os.makedirs(folder.audio_folder, exist_ok=True)
    with JournalLock(os.path.join(out_dir, manifest_name(split)), what=f"the {split} synthesis in {out_dir}"):
        return _synthesize_plan(squad_path, dataset, plan, folder, config, voices, workers, progress, started)


def _synthesize_plan(
    squad_path: str,
    dataset: dict,
    plan: List[Tuple[str, SquadQuestion, Voice]],
    folder: SquadSrcFolder,
    config: dict,
    voices: Sequence[Voice],
    workers: int,
    progress: bool,
    started: float,
) -> dict:
    """The work of `synthesize_questions` once the run holds the lock of its split: checks the
    folder against the manifest, writes the recordings and the layout's files and returns the
    summary. `plan`: `(fid, question, voice)` of each question; `config`: what the manifest
    records; `started`: the run's start (`time.perf_counter()`)."""
    out_dir, split = folder.folder, config["split"]
    audio_format = config.get("audio_format", "wav")
    manifest_path = os.path.join(out_dir, manifest_name(split))
    paths = {fid: os.path.join(folder.audio_folder, wav_name(fid, v.speaker, AUDIO_FORMATS[audio_format])) for fid, _, v in plan}
    if os.path.exists(manifest_path):
        with open(manifest_path, encoding="utf-8") as handle:
            previous = json.load(handle).get("config")
        if previous != config:
            raise InputError(
                f"{out_dir} holds a {split} synthesis with another configuration ({manifest_path}: {previous}); "
                "use another folder or delete that one"
            )
    else:
        foreign = sorted(path for path in paths.values() if os.path.exists(path))
        if foreign:
            raise InputError(
                f"{folder.audio_folder} already holds {len(foreign)} of the recordings this synthesis would make "
                f"(e.g. {os.path.basename(foreign[0])}) but no {manifest_name(split)} says what they were made "
                "from; use another folder or delete them"
            )
    write_json_atomic(manifest_path, {"config": config, "complete": False})
    for suffix in AUDIO_FORMATS.values():  # a killed run's; another split's are its own run's to remove
        for leftover in glob.glob(os.path.join(glob.escape(folder.audio_folder), f".*{suffix}*.tmp")):
            fid = re.match(r"\.([A-Z]+)\d{6}_", os.path.basename(leftover))
            if fid is None or fid.group(1) == split.upper():
                os.remove(leftover)

    todo = [(fid, v.name, q.question, paths[fid]) for fid, q, v in plan if not wav_is_done(paths[fid])]
    made_seconds, no_speech = 0.0, set()
    bar = tqdm(total=len(plan), initial=len(plan) - len(todo), desc="synthesizing", unit="q", disable=not progress)
    with worker_results(_synthesize, todo, workers) as results:
        try:
            for fid, voice_name, seconds, _ in results:
                made_seconds += seconds
                if seconds == 0:
                    no_speech.add(fid)
                bar.update(1)
        finally:
            bar.close()

    kept = [(fid, q, v) for fid, q, v in plan if fid not in no_speech]
    dropped = [q.qid for fid, q, v in plan if fid in no_speech]
    for qid in dropped:
        logger.warning("%s: the voice said nothing for question %s; it is left out", squad_path, qid)
    total_seconds = sum(soundfile.info(paths[fid]).frames for fid, _, _ in kept) / SAMPLE_RATE
    squad_copy = restrict_dataset(dataset, {q.qid for _, q, _ in kept})
    write_json_atomic(squad_copy_path(folder, squad_copy), squad_copy)
    write_speaker_table(folder.speaker_table_file, _merge_speakers(folder.speaker_table_file, voices))
    write_fid2qid(folder.fid2qid_file(), [(fid, q.qid) for fid, q, _ in kept])
    wall = time.perf_counter() - started
    summary = {
        "questions": len(kept),
        "synthesized_now": len(todo),
        "reused": len(plan) - len(todo),
        "no_speech": dropped,
        "audio_seconds": round(made_seconds, 3),
        "total_audio_seconds": round(total_seconds, 3),
        "wall_seconds": round(wall, 3),
        "audio_seconds_per_second": round(made_seconds / wall, 3) if wall > 0 else 0.0,
        "per_speaker": dict(sorted(Counter(v.speaker for _, _, v in kept).items())),
    }
    write_json_atomic(manifest_path, {"config": config, "complete": True, "summary": summary})
    return summary
