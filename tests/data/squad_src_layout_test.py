import json
import shutil

import numpy
import pytest

from srcframework.common.audio import write_wav_atomic
from srcframework.data.dataset_readers.squad_src import SquadSrcReader
from srcframework.data.errors import DatasetError
from srcframework.data.squad_src_layout import (
    FID_LISTED_TWICE,
    MISSING_AUDIO,
    NAME_MISMATCH,
    QUESTION_LISTED_TWICE,
    SECOND_RECORDING,
    UNKNOWN_QUESTION,
    UNKNOWN_SPEAKER,
    SquadSrcFileNotFound,
    SquadSrcFolder,
    find_recordings,
    match_fid2qid,
    wav_name,
    write_fid2qid,
)
from srcframework.jobs.cascade import run_cascade
from srcframework.jobs.transcription import TranscriptionSettings, spoken_questions
from srcframework.speech.engines import SpeechRecognizer
from tests.conftest import FIXTURES, shared_file
from tests.data.dataset_readers.squad_src_test import FIDS, QIDS, SPEAKERS, wav

ROWS = list(zip(FIDS, QIDS))


@SpeechRecognizer.register("squad_src_layout_test_words", exist_ok=True)
class Words(SpeechRecognizer):
    """Hears the same few words in every recording."""

    def transcribe(self, waveforms, sample_rate):
        return ["when was the harbour dredged"] * len(waveforms)


def record(path, pitch=220.0):
    """A 0.3 s tone standing in for a spoken question."""
    time = numpy.arange(4800, dtype=numpy.float32) / 16000
    write_wav_atomic(str(path), (0.3 * numpy.sin(2 * numpy.pi * pitch * time)).astype(numpy.float32), 16000)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A SQuAD-SRC folder: six questions of squad_tiny.json recorded by three SQuAD-SRC speakers,
    and a file in wavs/ that is no recording."""
    folder = tmp_path_factory.mktemp("layout") / "src"
    for index, fid in enumerate(FIDS):
        record(wav(folder, index), 200.0 + 40 * index)
    (folder / "wavs" / "notes.txt").write_text("not a recording")
    write_fid2qid(folder / "fid2qid_dev.csv", ROWS)
    shutil.copy(FIXTURES / "squad_tiny.json", folder / "squad_dev.json")
    return folder


@pytest.fixture
def folder(built, tmp_path):
    return shutil.copytree(built, tmp_path / "src")


def break_every_rule(folder):
    """One row or file for each join rule, each to be left out."""
    write_fid2qid(folder / "fid2qid_dev.csv", ROWS + [
        ("DEV000001", "q9"),  # a file id listed twice
        ("DEV000007", "q2"),  # a question with a second recording
        ("DEV000008", "nope"),  # an unknown question id
        ("DEV000009", "q7"),  # no recording
        ("DEV000010", "q8"),  # a speaker no table knows
    ])
    for fid in ("DEV000007", "DEV000008"):
        record(folder / "wavs" / wav_name(fid, "SPK001"))
    record(folder / "wavs" / wav_name("DEV000010", "SPK099"))
    record(folder / "wavs" / wav_name("DEV000003", "SPK024"))  # a second recording of a file id
    record(folder / "wavs" / "question7.wav")  # a name the pattern does not match


EVERY_RULE = {FID_LISTED_TWICE: 1, QUESTION_LISTED_TWICE: 1, UNKNOWN_QUESTION: 1, MISSING_AUDIO: 1,
              SECOND_RECORDING: 1, NAME_MISMATCH: 1, UNKNOWN_SPEAKER: 1}


def through_every_tool(folder, tiny_archive, out, skip_invalid=False):
    """The question ids of `folder` as the reader, the transcription job and the cascade see them,
    and the skips each counted."""
    reader = SquadSrcReader(skip_invalid=skip_invalid)
    read = [instance["metadata"]["id"] for instance in reader.read(str(folder / "fid2qid_dev.csv"))]
    join = spoken_questions(SquadSrcFolder(folder, "dev"), skip_invalid)
    listed = [spoken.question.qid for spoken in join.questions]
    settings = TranscriptionSettings("squad_src_layout_test_words", skip_invalid=skip_invalid, progress=False)
    metrics = run_cascade(SquadSrcFolder(folder, "dev"), str(tiny_archive), str(out), settings)
    scored = [json.loads(line)["id"] for line in open(out / "predictions.jsonl", encoding="utf-8")]
    skips = (dict(reader.last_skipped), dict(join.skipped), metrics["transcription"]["skipped"])
    return (read, listed, sorted(scored)), skips


def test_one_folder_gives_one_question_set_through_reader_transcription_and_cascade(built, folder, tiny_archive, tmp_path):
    (read, listed, scored), skips = through_every_tool(built, tiny_archive, tmp_path / "clean")
    assert read == listed == QIDS and scored == sorted(QIDS)
    assert skips == ({}, {}, {})
    break_every_rule(folder)
    (read, listed, scored), skips = through_every_tool(folder, tiny_archive, tmp_path / "broken", skip_invalid=True)
    assert read == listed == QIDS and scored == sorted(QIDS)
    assert skips == (EVERY_RULE, EVERY_RULE, EVERY_RULE)


def add_recorded_row(folder, fid, qid):
    write_fid2qid(folder / "fid2qid_dev.csv", ROWS + [(fid, qid)])
    record(folder / "wavs" / wav_name(fid, "SPK001"))


def duplicate_fid(folder):
    write_fid2qid(folder / "fid2qid_dev.csv", ROWS + [("DEV000001", "q9")])
    return FID_LISTED_TWICE, "fid2qid_dev.csv: file id 'DEV000001' is listed twice"


def question_twice(folder):
    add_recorded_row(folder, "DEV000007", "q2")
    return QUESTION_LISTED_TWICE, "fid2qid_dev.csv: question id 'q2' has two recordings: file ids 'DEV000002' and 'DEV000007'"


def second_recording(folder):
    record(folder / "wavs" / wav_name("DEV000003", "SPK024"))
    return SECOND_RECORDING, "DEV000003_SPK024.wav: file id 'DEV000003' already has a recording: DEV000003 has two recordings"


def name_mismatch(folder):
    record(folder / "wavs" / "question7.wav")
    return NAME_MISMATCH, "question7.wav: the file name does not match file_pattern"


def unknown_speaker(folder):
    wav(folder, 3).rename(folder / "wavs" / wav_name("DEV000004", "SPK099"))
    return UNKNOWN_SPEAKER, "DEV000004_SPK099.wav: speaker 'SPK099' is not in the SQuAD-SRC speaker table"


def unknown_question(folder):
    add_recorded_row(folder, "DEV000008", "nope")
    return UNKNOWN_QUESTION, "fid2qid_dev.csv: file id 'DEV000008' maps to question id 'nope', which"


def missing_recording(folder):
    wav(folder, 3).unlink()
    return MISSING_AUDIO, "wavs: no recording of file id 'DEV000004'"


STRICT_RULES = [duplicate_fid, question_twice, second_recording, name_mismatch, unknown_speaker]
PARTIAL_RULES = [unknown_question, missing_recording]


@pytest.mark.parametrize("damage", STRICT_RULES + PARTIAL_RULES)
def test_each_join_rule_is_an_error_naming_file_and_id_or_a_counted_skip(folder, damage):
    reason, message = damage(folder)
    with pytest.raises(DatasetError) as error:
        SquadSrcFolder(folder, "dev").join()
    assert message in str(error.value) and error.value.reason == reason
    join = SquadSrcFolder(folder, "dev").join(skip_invalid=True)
    assert join.skipped == {reason: 1}
    assert len(join.questions) == (5 if reason in (UNKNOWN_SPEAKER, MISSING_AUDIO) else 6)


@pytest.mark.parametrize("damage", STRICT_RULES)
def test_reader_and_transcription_refuse_a_broken_folder_alike(folder, damage):
    _, message = damage(folder)
    with pytest.raises(DatasetError) as by_reader:
        list(SquadSrcReader().read(str(folder / "fid2qid_dev.csv")))
    with pytest.raises(DatasetError) as by_transcription:
        spoken_questions(SquadSrcFolder(folder, "dev"))
    assert message in str(by_reader.value) and str(by_reader.value) == str(by_transcription.value)


@pytest.mark.parametrize("damage", PARTIAL_RULES)
def test_a_partial_join_counts_unknown_questions_and_missing_recordings(folder, damage):
    """What `transcribe` and `cascade` use: they take the part of a folder that is there."""
    reason, _ = damage(folder)
    with pytest.raises(DatasetError):
        list(SquadSrcReader().read(str(folder / "fid2qid_dev.csv")))
    assert spoken_questions(SquadSrcFolder(folder, "dev")).skipped == {reason: 1}
    assert SquadSrcFolder(folder, "dev").join(partial=True).skipped == {reason: 1}


def test_join_counts_unlisted_questions_and_ignored_files(built, folder):
    join = SquadSrcFolder(built, "dev").join()
    assert [(s.fid, s.question.qid, s.speaker.speaker) for s in join.questions] == list(zip(FIDS, QIDS, SPEAKERS))
    assert join.questions[0].audio == str(wav(built, 0)) and join.questions[0].speaker.country == "India"
    assert join.unlisted == ["q7", "q8", "q9"] and join.squad_questions == 9
    assert join.ignored_files == [str(built / "wavs" / "notes.txt")]
    with pytest.raises(DatasetError, match=r"squad_dev.json: 3 questions of .* have no row in .*fid2qid_dev.csv"):
        SquadSrcFolder(built, "dev").join(require_all_questions=True)


def test_files_of_a_folder(built, folder, tmp_path):
    assert SquadSrcFolder(built).fid2qid_file() == str(built / "fid2qid_dev.csv")
    by_file = SquadSrcFolder(built / "fid2qid_dev.csv")
    assert by_file.folder == str(built) and by_file.squad_path() == str(built / "squad_dev.json")
    assert SquadSrcFolder(built, "dev").audio_folder == str(built / "wavs")
    assert SquadSrcFolder(built, "dev").speaker_table_file == str(built / "speakers.tsv")
    shutil.copy(FIXTURES / "squad_tiny.json", tmp_path / "dev.json")
    assert SquadSrcFolder(built, "dev", squad_file=str(tmp_path / "{split}.json")).squad_path() == str(tmp_path / "dev.json")
    (folder / "squad_dev.json").unlink()
    with pytest.raises(SquadSrcFileNotFound, match="no SQuAD file: neither .*squad_dev.json nor .*squad.json exists"):
        SquadSrcFolder(folder, "dev").squad_path()
    with pytest.raises(FileNotFoundError, match="fid2qid_train.csv: fid2qid file of split 'train' not found"):
        SquadSrcFolder(folder, "train").join()
    with pytest.raises(ValueError, match="named groups 'fid' and 'speaker'"):
        SquadSrcFolder(folder, file_pattern=r"(?P<fid>\w+)\.wav")


def test_match_fid2qid_and_find_recordings(built):
    match = match_fid2qid(built / "fid2qid_dev.csv", built / "squad_dev.json")
    assert [(fid, q.qid) for fid, q in match.rows] == list(zip(FIDS, QIDS))
    assert match.unlisted == ["q7", "q8", "q9"]
    recordings = find_recordings(str(built / "wavs"))
    assert recordings == {fid: (str(wav(built, i)), SPEAKERS[i]) for i, fid in enumerate(FIDS)}


def test_real_squad_src_dev_ids_map_to_squad_dev():
    fid2qid = shared_file("squad_src/fid2qid_dev.csv")
    squad = shared_file("squad/dev-v1.1.json")
    match = match_fid2qid(fid2qid, squad)
    assert len(match.rows) == 10570 and match.unlisted == []
    assert all(fid.startswith("DEV") for fid, _ in match.rows)
    assert len({q.qid for _, q in match.rows}) == 10570


def test_duplicate_question_ids_in_the_squad_file_name_the_id_and_file(tmp_path):
    data = json.loads((FIXTURES / "squad_tiny.json").read_text())
    data["data"][1]["paragraphs"][0]["qas"][0]["id"] = "q1"
    squad_file = tmp_path / "squad_dev.json"
    squad_file.write_text(json.dumps(data))
    write_fid2qid(tmp_path / "fid2qid_dev.csv", list(zip(FIDS, QIDS)))
    for skip_invalid in (False, True):
        with pytest.raises(DatasetError) as error:
            match_fid2qid(tmp_path / "fid2qid_dev.csv", squad_file, skip_invalid=skip_invalid)
        assert str(error.value).startswith(f"{squad_file} (question id 'q1'): duplicate question id")


def test_several_recordings_of_a_question_are_read_once_each_when_asked(folder):
    add_recorded_row(folder, "DEV000007", "q2")
    with pytest.raises(DatasetError, match="question id 'q2' has two recordings"):
        SquadSrcFolder(folder).join()
    join = SquadSrcFolder(folder).join(several_recordings=True)
    assert [s.fid for s in join.questions if s.question.qid == "q2"] == ["DEV000002", "DEV000007"]
    instances = list(SquadSrcReader(several_recordings=True).read(folder / "fid2qid_dev.csv"))
    assert [i["metadata"]["fid"] for i in instances if i["metadata"]["id"] == "q2"] == ["DEV000002", "DEV000007"]
    assert len(instances) == len(ROWS) + 1
