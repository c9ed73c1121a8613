"""One rule for silent recordings: the `squad_src` reader refuses (or, with skip_invalid, counts)
a silent recording as `transcribe` does; and an error about a recording names its path once."""
import json
import shutil

import numpy
import pytest

from srcframework.common.audio import write_wav_atomic
from srcframework.data.dataset_readers.squad_src import SquadSrcReader
from srcframework.data.errors import DatasetError
from srcframework.data.squad_src_layout import wav_name, write_fid2qid
from srcframework.jobs.transcription import _transcribe_batch
from tests.conftest import FIXTURES

QIDS = ["q1", "q2", "q3"]
FIDS = ["DEV000001", "DEV000002", "DEV000003"]
SPEAKER = "SPK011"


def tone(seconds=0.5, rate=16000, amplitude=0.3):
    return amplitude * numpy.sin(2 * numpy.pi * 440 * numpy.arange(int(seconds * rate)) / rate)


@pytest.fixture
def folder(tmp_path):
    """A SQuAD-SRC-style folder of three recordings (tones); the second is silent (all zero)."""
    folder = tmp_path / "src"
    for index, fid in enumerate(FIDS):
        waveform = numpy.zeros(16000) if index == 1 else tone()
        write_wav_atomic(folder / "wavs" / wav_name(fid, SPEAKER), waveform, 16000)
    write_fid2qid(folder / "fid2qid_dev.csv", list(zip(FIDS, QIDS)))
    shutil.copy(FIXTURES / "squad_tiny.json", folder / "squad_dev.json")
    return folder


def test_the_reader_refuses_a_silent_recording_as_transcribe_does(folder):
    silent = folder / "wavs" / wav_name(FIDS[1], SPEAKER)
    with pytest.raises(DatasetError) as refused:
        list(SquadSrcReader().read(str(folder / "fid2qid_dev.csv")))
    assert str(refused.value) == f"{silent}: audio file is silent (all 16000 samples are zero)"
    assert str(refused.value).count(str(silent)) == 1
    # transcribe's own check of the same recording: the same words
    rows = _transcribe_batch(({"type": "unused"}, "", [(FIDS[1], str(silent))], 15.0))
    assert rows == [{"fid": FIDS[1], "path": str(silent), "error": "audio file is silent (all 16000 samples are zero)"}]


def test_with_skip_invalid_the_reader_counts_it(folder):
    reader = SquadSrcReader(skip_invalid=True)
    instances = list(reader.read(str(folder / "fid2qid_dev.csv")))
    assert [instance["metadata"]["id"] for instance in instances] == ["q1", "q3"]
    assert reader.last_skipped == {"silent audio file": 1}


def test_an_unreadable_recording_is_named_once_by_transcribe(folder):
    broken = folder / "wavs" / wav_name(FIDS[2], SPEAKER)
    broken.write_bytes(b"not a wav file")
    (row,) = _transcribe_batch(({"type": "unused"}, "", [(FIDS[2], str(broken))], 15.0))
    assert str(broken) not in row["error"] and row["error"].startswith("cannot read audio file: ")
