import json
import os

import numpy
import pytest
import soundfile

from srcframework.data.squad_src_layout import parse_wav_name, read_fid2qid, read_speaker_table
from srcframework.common.audio import float_to_int16, resample
from srcframework.jobs.synthesis import assign_speakers, synthesize_questions
from srcframework.speech.voices import get_voice, parse_voices
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "squad_tiny.json")
TINY_QUESTIONS = [qa for a in json.load(open(TINY))["data"] for p in a["paragraphs"] for qa in p["qas"]]


def wavs(folder):
    return sorted(os.listdir(folder / "wavs"))


def test_assign_speakers_round_robin_and_seeded():
    voices = parse_voices("flite:kal16,flite:awb,flite:slt")
    plain = [v.speaker for v in assign_speakers(7, voices)]
    assert plain == ["SPK101", "SPK103", "SPK105", "SPK101", "SPK103", "SPK105", "SPK101"]
    seeded = [v.speaker for v in assign_speakers(7, voices, seed=4)]
    assert seeded == [v.speaker for v in assign_speakers(7, voices, seed=4)]
    assert sorted(seeded) == sorted(plain) and seeded != plain  # balanced, but another order
    assert [v.speaker for v in assign_speakers(7, voices, seed=5)] != seeded


def test_writes_the_squad_src_layout(tmp_path):
    out = tmp_path / "src"
    summary = synthesize_questions(TINY, str(out), "flite:kal,flite:slt", limit=5, progress=False)
    assert summary["questions"] == 5 and summary["synthesized_now"] == 5 and summary["reused"] == 0
    assert summary["per_speaker"] == {"SPK102": 3, "SPK105": 2}
    assert summary["audio_seconds"] == summary["total_audio_seconds"] > 5
    assert summary["audio_seconds_per_second"] > 0
    rows = read_fid2qid(str(out / "fid2qid_dev.csv"))
    assert rows == [(f"DEV00000{n}", f"q{n}") for n in range(1, 6)]
    assert wavs(out) == ["DEV000001_SPK102.wav", "DEV000002_SPK105.wav", "DEV000003_SPK102.wav",
                         "DEV000004_SPK105.wav", "DEV000005_SPK102.wav"]
    assert all(parse_wav_name(name) for name in wavs(out))
    speakers = read_speaker_table(str(out / "speakers.tsv"))
    assert {k: (s.country, s.gender, s.voice) for k, s in speakers.items()} == {
        "SPK102": ("US", "M", "flite:kal"), "SPK105": ("US", "F", "flite:slt")}
    copy = json.load(open(out / "squad.json"))
    copied_ids = [qa["id"] for a in copy["data"] for p in a["paragraphs"] for qa in p["qas"]]
    assert copied_ids == ["q1", "q2", "q3", "q4", "q5"]
    seconds = 0.0
    for name in wavs(out):
        info = soundfile.info(str(out / "wavs" / name))
        assert (info.samplerate, info.channels, info.subtype, info.format) == (16000, 1, "PCM_16", "WAV")
        seconds += info.frames / 16000
    assert seconds == pytest.approx(summary["total_audio_seconds"], abs=0.01)
    # the 8 kHz voice's file is its waveform resampled to 16 kHz; flite is deterministic
    waveform, rate = get_voice("flite:kal").build().synthesize(TINY_QUESTIONS[0]["question"])
    assert rate == 8000
    written, _ = soundfile.read(str(out / "wavs" / "DEV000001_SPK102.wav"), dtype="int16")
    assert numpy.array_equal(written, float_to_int16(resample(waveform, 8000, 16000)))
    manifest = json.load(open(out / "synthesis_dev.json"))
    assert manifest["complete"] and manifest["summary"] == summary


def test_rerun_redoes_only_missing_or_broken_wavs(tmp_path):
    out = tmp_path / "src"
    first = synthesize_questions(TINY, str(out), "flite:kal16,flite:awb", progress=False)
    assert first["synthesized_now"] == 9
    names = wavs(out)
    before = {name: (out / "wavs" / name).read_bytes() for name in names}
    stamps = {name: os.stat(out / "wavs" / name).st_mtime_ns for name in names}
    again = synthesize_questions(TINY, str(out), "flite:kal16,flite:awb", progress=False)
    assert again["synthesized_now"] == 0 and again["reused"] == 9 and again["audio_seconds"] == 0
    assert again["total_audio_seconds"] == first["total_audio_seconds"]
    os.remove(out / "wavs" / names[2])
    os.remove(out / "wavs" / names[7])
    (out / "wavs" / names[4]).write_bytes(b"RIFF not a wav")  # a broken file is redone too
    (out / "wavs" / ".tmpabc.wav.tmp").write_bytes(b"left by a killed run")
    (out / "wavs" / ".DEV000002_SPK103.wav.k3x9q.tmp").write_bytes(b"atomic_output's own name")
    resumed = synthesize_questions(TINY, str(out), "flite:kal16,flite:awb", progress=False)
    assert resumed["synthesized_now"] == 3 and resumed["reused"] == 6
    assert wavs(out) == names  # the leftover temporary file is gone
    for name in names:
        assert (out / "wavs" / name).read_bytes() == before[name]
        if name not in {names[2], names[4], names[7]}:
            assert os.stat(out / "wavs" / name).st_mtime_ns == stamps[name]


@pytest.mark.slow
def test_two_workers_write_the_same_files(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    voices = "flite:rms,espeak_ng:en-029"
    synthesize_questions(TINY, str(one), voices, limit=4, seed=1, progress=False)
    summary = synthesize_questions(TINY, str(two), voices, limit=4, seed=1, workers=2, progress=False)
    assert summary["synthesized_now"] == 4
    assert wavs(one) == wavs(two)
    for name in wavs(one):
        assert (one / "wavs" / name).read_bytes() == (two / "wavs" / name).read_bytes()
    for name in ("fid2qid_dev.csv", "speakers.tsv", "squad.json"):
        assert (one / name).read_bytes() == (two / name).read_bytes()


def test_another_configuration_into_the_same_folder_is_refused(tmp_path):
    out = tmp_path / "src"
    synthesize_questions(TINY, str(out), "flite:kal16", limit=2, progress=False)
    with pytest.raises(ValueError, match="another configuration"):
        synthesize_questions(TINY, str(out), "flite:awb", limit=2, progress=False)
    with pytest.raises(ValueError, match="another configuration"):
        synthesize_questions(TINY, str(out), "flite:kal16", limit=3, progress=False)
    # another split shares the speaker table; its questions go to squad_train.json
    dev_copy = (out / "squad.json").read_bytes()
    synthesize_questions(TINY, str(out), "flite:awb", split="train", limit=1, progress=False)
    assert read_fid2qid(str(out / "fid2qid_train.csv")) == [("TRAIN000001", "q1")]
    assert set(read_speaker_table(str(out / "speakers.tsv"))) == {"SPK101", "SPK103"}
    assert (out / "squad.json").read_bytes() == dev_copy
    train_copy = json.load(open(out / "squad_train.json"))
    assert [qa["id"] for a in train_copy["data"] for p in a["paragraphs"] for qa in p["qas"]] == ["q1"]
    synthesize_questions(TINY, str(out), "flite:kal16", limit=2, progress=False)  # dev again: same files
    assert (out / "squad.json").read_bytes() == dev_copy


def test_recordings_without_a_manifest_are_not_taken_for_this_run(tmp_path):
    """WAVs under this run's names in a folder with no synthesis_<split>.json (say another run's,
    whose manifest was deleted) could hold anything: they are refused, not reused."""
    from allennlp.common.checks import ConfigurationError

    out = tmp_path / "src"
    synthesize_questions(TINY, str(out), "flite:awb", limit=2, progress=False)
    (out / "synthesis_dev.json").unlink()
    before = {name: (out / "wavs" / name).read_bytes() for name in wavs(out)}
    with pytest.raises(ConfigurationError, match=r"wavs already holds 2 of the recordings .*DEV000001_SPK103\.wav.*"
                                                 r"no synthesis_dev\.json"):
        synthesize_questions(TINY, str(out), "flite:awb", limit=2, progress=False)
    assert {name: (out / "wavs" / name).read_bytes() for name in wavs(out)} == before


def test_bad_arguments_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="unknown voice 'flite:bob'; known voices: flite:kal16"):
        synthesize_questions(TINY, str(tmp_path / "a"), "flite:bob", progress=False)
    with pytest.raises(ValueError, match="letters only"):
        synthesize_questions(TINY, str(tmp_path / "a"), "flite:kal16", split="dev-1", progress=False)
    with pytest.raises(ValueError, match="limit"):
        synthesize_questions(TINY, str(tmp_path / "a"), "flite:kal16", limit=0, progress=False)
    broken = tmp_path / "broken.json"
    broken.write_text('{"data": [}')
    with pytest.raises(ValueError, match="broken.json: malformed JSON"):
        synthesize_questions(str(broken), str(tmp_path / "b"), "flite:kal16", progress=False)


def test_flac_holds_the_samples_of_the_wav_and_the_reader_reads_it(tmp_path):
    from srcframework.common.errors import InputError
    from srcframework.data.dataset_readers.squad_src import SquadSrcReader

    wav_out, flac_out = tmp_path / "wav", tmp_path / "flac"
    synthesize_questions(TINY, str(wav_out), "flite:kal16,flite:slt", limit=3, progress=False)
    summary = synthesize_questions(TINY, str(flac_out), "flite:kal16,flite:slt", limit=3, progress=False,
                                   audio_format="flac")
    assert wavs(flac_out) == [name.replace(".wav", ".flac") for name in wavs(wav_out)]
    for name in wavs(wav_out):
        flac = str(flac_out / "wavs" / name.replace(".wav", ".flac"))
        assert soundfile.info(flac).format == "FLAC"
        assert numpy.array_equal(soundfile.read(flac, dtype="int16")[0],
                                 soundfile.read(str(wav_out / "wavs" / name), dtype="int16")[0])
        assert os.path.getsize(flac) < os.path.getsize(str(wav_out / "wavs" / name))
    reader = SquadSrcReader()
    read = list(reader.read(str(flac_out / "fid2qid_dev.csv")))
    assert len(read) == summary["questions"] == 3
    # a rerun resumes (nothing to make); another format into the same folder is refused
    again = synthesize_questions(TINY, str(flac_out), "flite:kal16,flite:slt", limit=3, progress=False,
                                 audio_format="flac")
    assert again["synthesized_now"] == 0 and again["reused"] == 3
    with pytest.raises(InputError, match="another configuration"):
        synthesize_questions(TINY, str(flac_out), "flite:kal16,flite:slt", limit=3, progress=False)
    with pytest.raises(InputError, match="audio format must be one of wav, flac"):
        synthesize_questions(TINY, str(tmp_path / "x"), "flite:kal16", limit=1, progress=False, audio_format="mp3")


def test_a_second_run_into_the_same_folder_stops_naming_the_running_one(tmp_path):
    """While a run of the split holds `synthesis_dev.json.lock` (here this process), another run
    (with another configuration) stops with one line naming it, leaves its temporary recordings
    alone and does not say to delete the folder; another split runs beside it. The lock file a
    killed run leaves (no process holds it) is taken over."""
    from srcframework.common.journal import JournalBusy, JournalLock

    out = tmp_path / "src"
    synthesize_questions(TINY, str(out), "flite:kal16", limit=2, progress=False)
    live = out / "wavs" / ".DEV000002_SPK102.wav.x1y2.tmp"  # the running one's recording being written
    live.write_bytes(b"RIFF")
    with JournalLock(str(out / "synthesis_dev.json")):
        with pytest.raises(JournalBusy) as busy:
            synthesize_questions(TINY, str(out), "flite:awb", limit=2, progress=False)
        message = str(busy.value)
        assert message.startswith(f"another run is writing the dev synthesis in {out} now (process {os.getpid()}, since ")
        assert "\n" not in message and "delete" not in message
        assert live.exists()
        synthesize_questions(TINY, str(out), "flite:awb", split="train", limit=1, progress=False)
        assert live.exists()
    (out / "synthesis_dev.json.lock").write_text(json.dumps({"pid": 999999999, "since": "then", "command": "killed"}))
    summary = synthesize_questions(TINY, str(out), "flite:kal16", limit=2, progress=False)
    assert summary["reused"] == 2 and not live.exists() and not (out / "synthesis_dev.json.lock").exists()
