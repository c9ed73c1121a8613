"""`transcribe` and the `squad_src` reader hear the same audio of a long recording: one limit
(`common.audio.MAX_QUESTION_SECONDS`), and each cut is logged with the file and both lengths."""
import json
import logging
import shutil

import numpy
import pytest

from srcframework.common.audio import MAX_QUESTION_SECONDS, read_wav, write_wav_atomic
from srcframework.data.audio_indexers.audio_indexer import WaveformIndexer
from srcframework.data.dataset_readers.squad_src import SquadSrcReader
from srcframework.jobs.transcription import TranscriptionSettings, transcribe_folder
from srcframework.speech.wav2vec2_ctc import Wav2Vec2CtcRecognizer
from tests.conftest import FIXTURES
from tests.speech.wav2vec2_ctc_test import model_dir  # noqa: F401  (a tiny saved wav2vec2 model)

TINY = str(FIXTURES / "squad_tiny.json")
LONG = "DEV000002_SPK103.wav"


@pytest.fixture
def long_recording(spoken_tiny, tmp_path):
    """A copy of the spoken tiny folder whose second recording lasts 20 s (itself, then silence)."""
    folder = tmp_path / "src"
    shutil.copytree(spoken_tiny, folder)
    waveform, rate = read_wav(str(folder / "wavs" / LONG))
    padded = numpy.zeros(20 * rate, dtype=numpy.float32)
    padded[: waveform.size] = waveform
    padded[14 * rate: 14 * rate + waveform.size // 2] = waveform[: waveform.size // 2]  # speech across the cut
    write_wav_atomic(str(folder / "wavs" / LONG), padded, rate)
    return folder


def test_one_limit_for_the_reader_and_transcribe():
    assert WaveformIndexer().max_seconds == MAX_QUESTION_SECONDS == TranscriptionSettings().max_seconds
    assert SquadSrcReader().audio_indexer.max_seconds == MAX_QUESTION_SECONDS


def test_the_reader_logs_each_cut_with_the_file_and_lengths(long_recording, caplog):
    path = str(long_recording / "wavs" / LONG)
    with caplog.at_level(logging.WARNING, logger="srcframework.common.audio"):
        waveform = WaveformIndexer().prepare(path)
    assert waveform.shape[0] == MAX_QUESTION_SECONDS * 16000
    assert f"{path}: 20.00 s of audio cut to its first 15.00 s (max_seconds 15.0)" in caplog.messages


def test_transcribe_hears_what_the_reader_keeps_and_logs_the_cut(long_recording, model_dir, tmp_path, caplog):  # noqa: F811
    params = {"type": "wav2vec2_ctc", "model_name_or_path": model_dir}
    out = tmp_path / "transcripts.json"
    path = str(long_recording / "wavs" / LONG)
    with caplog.at_level(logging.WARNING, logger="srcframework.common.audio"):
        summary = transcribe_folder(str(long_recording), str(out), params, squad_path=TINY, progress=False)
    assert f"{path}: 20.00 s of audio cut to its first 15.00 s (max_seconds 15.0)" in caplog.messages
    waveform, rate = read_wav(path)
    heard = Wav2Vec2CtcRecognizer(model_dir).transcribe([waveform[: 15 * rate]], rate)[0]
    written = {qa["fid"]: qa for a in json.loads(out.read_text())["data"] for p in a["paragraphs"] for qa in p["qas"]}
    assert written["DEV000002"]["question"] == " ".join(heard.split())
    assert json.loads(out.read_text())["transcription"]["max_seconds"] == MAX_QUESTION_SECONDS
    # all of it, when asked: another job, no cut
    whole = tmp_path / "whole.json"
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="srcframework.common.audio"):
        longer = transcribe_folder(str(long_recording), str(whole), params, squad_path=TINY, progress=False,
                                   max_seconds=None)
    assert not [m for m in caplog.messages if "cut to" in m]
    assert longer["audio_seconds"] == pytest.approx(summary["audio_seconds"] + 5, abs=0.01)
    assert json.loads(whole.read_text())["transcription"]["key"] != json.loads(out.read_text())["transcription"]["key"]
