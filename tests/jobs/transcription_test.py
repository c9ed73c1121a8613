import json
import os
import shutil

import numpy
import pytest

from srcframework.data.squad_src_layout import write_fid2qid
from srcframework.metrics.text_noise import wer
from srcframework.common.audio import read_wav, write_wav_atomic
from srcframework.speech.pocketsphinx_asr import PocketsphinxRecognizer
from srcframework.jobs.transcription import parse_recognizer, transcribe_folder
from tests.conftest import FIXTURES
from tests.speech.wav2vec2_ctc_test import model_dir  # noqa: F401  (a tiny saved wav2vec2 model)

TINY = str(FIXTURES / "squad_tiny.json")


def qas(path):
    data = json.load(open(path, encoding="utf-8"))
    return {qa["id"]: qa for a in data["data"] for p in a["paragraphs"] for qa in p["qas"]}


@pytest.fixture(scope="module")
def folder(spoken_tiny):
    """Four questions of the tiny fixture read by flite kal16 (US) and awb (UK), made once a
    session (conftest); a test that changes it works on a copy."""
    return spoken_tiny


@pytest.fixture(scope="module")
def reference(folder, tmp_path_factory):
    """An uninterrupted transcription of `folder` (one question at a time) and its summary."""
    out = tmp_path_factory.mktemp("reference") / "transcripts.json"
    summary = transcribe_folder(str(folder), str(out), "pocketsphinx", squad_path=TINY, batch_size=1, progress=False)
    return out, summary


@pytest.fixture(scope="module")
def wav2vec2_reference(folder, model_dir, tmp_path_factory):  # noqa: F811
    """An uninterrupted transcription of `folder` by the tiny wav2vec2 model (fast, deterministic)."""
    params = {"type": "wav2vec2_ctc", "model_name_or_path": model_dir}
    out = tmp_path_factory.mktemp("w2v") / "transcripts.json"
    transcribe_folder(str(folder), str(out), params, squad_path=TINY, batch_size=4, progress=False)
    return out, params


def test_transcripts_as_squad_with_groups_and_wer(folder, reference):
    out, summary = reference
    assert summary["questions"] == 4 and summary["transcribed_now"] == 4 and summary["no_audio"] == 5
    assert summary["audio_seconds"] > 4 and summary["real_time_factor"] > 0
    written, clean = qas(out), qas(TINY)
    assert set(written) == {"q1", "q2", "q3", "q4"}
    expected = {"q1": ("DEV000001", "SPK101", "US"), "q2": ("DEV000002", "SPK103", "UK"),
                "q3": ("DEV000003", "SPK101", "US"), "q4": ("DEV000004", "SPK103", "UK")}
    for qid, qa in written.items():
        assert qa["original_question"] == clean[qid]["question"]
        assert qa["answers"] == clean[qid]["answers"]
        assert (qa["fid"], qa["speaker"], qa["country"], qa["gender"]) == (*expected[qid], "M")
        assert qa["question"] and qa["question"] == qa["question"].lower()
    # the job hands the recordings to the recognizer unchanged
    waveform, rate = read_wav(str(folder / "wavs" / "DEV000002_SPK103.wav"))
    assert written["q2"]["question"] == PocketsphinxRecognizer().transcribe([waveform], rate)[0]
    report = json.load(open(f"{out}.wer.json"))
    refs = [written[q]["original_question"] for q in sorted(written)]
    hyps = [written[q]["question"] for q in sorted(written)]
    assert report["overall"]["wer"] == pytest.approx(wer(refs, hyps)) == pytest.approx(summary["wer"])
    assert 0 < report["overall"]["wer"] < 100  # flite through pocketsphinx: some errors, mostly right
    uk = [q for q in sorted(written) if written[q]["country"] == "UK"]
    assert report["by_country"]["UK"]["wer"] == pytest.approx(
        wer([written[q]["original_question"] for q in uk], [written[q]["question"] for q in uk]))
    assert set(report["by_speaker"]) == {"SPK101", "SPK103"} and set(report["by_gender"]) == {"M"}
    assert "lowercase" in report["normalization"]
    meta = json.load(open(out))["transcription"]
    assert meta["recognizer"] == {"type": "pocketsphinx"} and meta["empty_transcripts"] == []
    assert not os.path.exists(f"{out}.journal.jsonl")


def test_a_finished_output_is_reused(folder, reference, tmp_path):
    out = tmp_path / "t.json"
    shutil.copy(reference[0], out)
    summary = transcribe_folder(str(folder), str(out), '{"type": "pocketsphinx"}', squad_path=TINY, progress=False)
    assert summary["transcribed_now"] == 0 and summary["reused"] == 4
    assert qas(out) == qas(reference[0])


def test_another_recognizer_is_another_job(folder, reference, tmp_path, model_dir):  # noqa: F811
    out = tmp_path / "t.json"
    shutil.copy(reference[0], out)
    params = {"type": "wav2vec2_ctc", "model_name_or_path": model_dir}
    summary = transcribe_folder(str(folder), str(out), params, squad_path=TINY, batch_size=3, progress=False)
    assert summary["transcribed_now"] == 4
    assert json.load(open(out))["transcription"]["recognizer"]["type"] == "wav2vec2_ctc"


def test_rerun_after_a_failure_midway_transcribes_only_the_rest(folder, wav2vec2_reference, tmp_path):
    """A broken recording stops the job after two journaled questions; once it is repaired, the
    rerun transcribes only the other two and writes what an uninterrupted run wrote."""
    src = tmp_path / "src"
    shutil.copytree(folder, src)
    broken = src / "wavs" / "DEV000003_SPK101.wav"
    good = broken.read_bytes()
    broken.write_bytes(b"")
    out = tmp_path / "t.json"
    reference, params = wav2vec2_reference
    with pytest.raises(ValueError, match="DEV000003_SPK101.wav"):
        transcribe_folder(str(src), str(out), params, squad_path=TINY, batch_size=1, progress=False)
    journal = tmp_path / "t.json.journal.jsonl"
    assert [json.loads(line)["fid"] for line in journal.read_text().splitlines()[1:]] == ["DEV000001", "DEV000002"]
    assert not out.exists()
    broken.write_bytes(good)
    summary = transcribe_folder(str(src), str(out), params, squad_path=TINY, batch_size=1, progress=False)
    assert summary["transcribed_now"] == 2 and summary["reused"] == 2
    assert qas(out) == qas(reference)
    assert not journal.exists()


@pytest.mark.slow
def test_two_workers_give_the_same_output(folder, wav2vec2_reference, tmp_path):
    reference, params = wav2vec2_reference
    out = tmp_path / "t.json"
    summary = transcribe_folder(str(folder), str(out), params, squad_path=TINY, workers=2, batch_size=2, progress=False)
    assert summary["transcribed_now"] == 4
    assert qas(out) == qas(reference)


def test_squad_src_speakers_and_empty_transcripts(folder, tmp_path):
    """Without speakers.tsv SQuAD-SRC's own speaker table applies; a recording the recognizer
    hears nothing in goes to empty_transcripts and counts as all-deleted in the WER."""
    src = tmp_path / "src"
    os.makedirs(src / "wavs")
    shutil.copy(folder / "wavs" / "DEV000001_SPK101.wav", src / "wavs" / "DEV000001_SPK009.wav")
    hiss = numpy.random.RandomState(0).randn(16000).astype(numpy.float32) * 0.001
    write_wav_atomic(str(src / "wavs" / "DEV000002_SPK014.wav"), hiss, 16000)
    (src / "wavs" / "notes.txt").write_text("not a recording")
    write_fid2qid(str(src / "fid2qid_dev.csv"), [("DEV000001", "q1"), ("DEV000002", "q2"), ("DEV000003", "q3")])
    out = tmp_path / "t.json"
    summary = transcribe_folder(str(src), str(out), "pocketsphinx", squad_path=TINY, progress=False)
    assert summary["questions"] == 2 and summary["empty_transcripts"] == 1 and summary["ignored_files"] == 1
    assert summary["no_audio"] == 7
    written = qas(out)
    assert set(written) == {"q1"} and (written["q1"]["country"], written["q1"]["gender"]) == ("US", "F")
    empty = json.load(open(out))["transcription"]["empty_transcripts"]
    assert [(e["id"], e["question"], e["country"], e["gender"]) for e in empty] == [("q2", "", "UK", "F")]
    report = json.load(open(f"{out}.wer.json"))
    assert report["by_country"]["UK"]["wer"] == 100.0
    assert report["overall"]["wer"] == pytest.approx(
        wer([written["q1"]["original_question"], empty[0]["original_question"]], [written["q1"]["question"], ""]))


def test_recognizer_from_a_json_string(folder, wav2vec2_reference, tmp_path):
    reference, params = wav2vec2_reference
    assert parse_recognizer(json.dumps(params)) == params
    out = tmp_path / "t.json"
    summary = transcribe_folder(str(folder), str(out), json.dumps(params), squad_path=TINY, progress=False)
    assert summary["transcribed_now"] == 4 and qas(out) == qas(reference)


def test_clear_errors(folder, tmp_path):
    with pytest.raises(ValueError, match="unknown recognizer 'nope'.*pocketsphinx"):
        parse_recognizer("nope")
    with pytest.raises(ValueError, match="not valid JSON"):
        parse_recognizer('{"type": ')
    with pytest.raises(ValueError, match='needs a "type"'):
        parse_recognizer('{"hmm": "x"}')
    src = tmp_path / "src"
    shutil.copytree(folder, src)
    os.remove(src / "squad.json")
    with pytest.raises(FileNotFoundError, match="squad_dev.json nor .*squad.json exists; give it with --squad"):
        transcribe_folder(str(src), str(tmp_path / "t.json"), progress=False)
    with pytest.raises(FileNotFoundError, match="fid2qid_train.csv"):
        transcribe_folder(str(src), str(tmp_path / "t.json"), split="train", squad_path=TINY, progress=False)
    shutil.copy(src / "wavs" / "DEV000001_SPK101.wav", src / "wavs" / "DEV000001_SPK103.wav")
    with pytest.raises(ValueError, match="DEV000001 has two recordings"):
        transcribe_folder(str(src), str(tmp_path / "t.json"), squad_path=TINY, progress=False)
    os.remove(src / "wavs" / "DEV000001_SPK103.wav")
    journal = tmp_path / "t.json.journal.jsonl"
    journal.write_text(json.dumps({"key": "another job"}) + "\n")
    with pytest.raises(ValueError, match="belongs to another recognizer"):
        transcribe_folder(str(src), str(tmp_path / "t.json"), squad_path=TINY, progress=False)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"data": [{"title": "x", "paragraphs": [{"context": "c", "qas": [
        {"id": "zz", "question": "q?", "answers": []}]}]}]}))
    with pytest.raises(ValueError, match="no recording"):
        transcribe_folder(str(src), str(tmp_path / "o.json"), squad_path=str(other), progress=False)



def test_a_transcript_file_trains_and_validates_a_model(reference, tmp_path):
    """What the `*_asr_transcripts` configs do: a model trained and validated on the transcripts,
    whose predictions keep the clean question as `original_question`."""
    from allennlp.commands.train import train_model_from_file
    from allennlp.models.archival import load_archive
    from allennlp.predictors import Predictor

    transcripts, _ = reference
    overrides = json.dumps({"train_data_path": str(transcripts), "validation_data_path": str(transcripts)})
    model = train_model_from_file(str(FIXTURES / "bidaf_tiny.jsonnet"), str(tmp_path / "run"), overrides=overrides)
    metrics = json.load(open(tmp_path / "run" / "metrics.json"))
    assert metrics["epoch"] == 1 and 0.0 <= metrics["validation_f1"] <= 1.0
    assert model.vocab.get_vocab_size("tokens") > 2
    predictor = Predictor.from_archive(load_archive(str(tmp_path / "run" / "model.tar.gz")), "span_qa")
    spoken = qas(transcripts)
    instances = list(predictor._dataset_reader.read(str(transcripts)))
    assert len(instances) == len(spoken)
    for instance in instances:
        meta = instance["metadata"].metadata
        assert meta["question"] == spoken[meta["id"]]["question"]
        assert meta["original_question"] == spoken[meta["id"]]["original_question"]
    output = predictor.predict_instance(instances[0])
    assert output["original_question"] == spoken[output["id"]]["original_question"]


def spoil(src):
    """Three of the four recordings of a copied folder made bad in the three ways the audio
    indexer refuses: NaN/inf samples, bytes that are no audio, an empty file."""
    import soundfile

    nan = numpy.zeros(8000, dtype=numpy.float32)
    nan[100] = numpy.nan
    nan[200] = -numpy.inf
    soundfile.write(str(src / "wavs" / "DEV000002_SPK103.wav"), nan, 16000, subtype="FLOAT")
    (src / "wavs" / "DEV000003_SPK101.wav").write_bytes(b"RIFF but not really a wave file")
    (src / "wavs" / "DEV000004_SPK103.wav").write_bytes(b"")


@pytest.fixture
def spoiled(folder, tmp_path):
    """A copy of the spoken folder with three bad recordings (see `spoil`)."""
    src = tmp_path / "src"
    shutil.copytree(folder, src)
    spoil(src)
    return src


def test_bad_audio_stops_the_run_naming_the_file_and_keeps_the_journal(spoiled, wav2vec2_reference, tmp_path):
    from srcframework.data.errors import DatasetError

    src = spoiled
    _, params = wav2vec2_reference
    out = tmp_path / "t.json"
    with pytest.raises(DatasetError, match=r"DEV000002_SPK103\.wav.*2 NaN or infinite samples.*--skip-invalid"):
        transcribe_folder(str(src), str(out), params, squad_path=TINY, batch_size=1, progress=False)
    journal = tmp_path / "t.json.journal.jsonl"
    assert [json.loads(line)["fid"] for line in journal.read_text().splitlines()[1:]] == ["DEV000001"]
    assert not out.exists()
    # the good recordings of a batch are journaled before the bad one stops the run
    os.remove(journal)
    with pytest.raises(DatasetError, match=r"DEV000002_SPK103\.wav"):
        transcribe_folder(str(src), str(out), params, squad_path=TINY, batch_size=4, progress=False)
    assert [json.loads(line)["fid"] for line in journal.read_text().splitlines()[1:]] == ["DEV000001"]


@pytest.mark.slow
def test_skip_invalid_counts_and_lists_bad_audio_and_goes_on(spoiled, wav2vec2_reference, tmp_path):
    src = spoiled
    reference, params = wav2vec2_reference
    out = tmp_path / "t.json"
    summary = transcribe_folder(str(src), str(out), params, squad_path=TINY, batch_size=2, workers=2,
                                skip_invalid=True, progress=False)
    assert summary["questions"] == 1 and summary["invalid_audio"] == 3
    listed = {row["fid"]: row for row in summary["invalid_files"]}
    assert sorted(listed) == ["DEV000002", "DEV000003", "DEV000004"]
    assert "NaN or infinite" in listed["DEV000002"]["error"]
    assert "cannot read audio file" in listed["DEV000003"]["error"]
    assert "empty (0 bytes)" in listed["DEV000004"]["error"]
    assert listed["DEV000004"]["path"] == str(src / "wavs" / "DEV000004_SPK103.wav")
    assert qas(out) == {"q1": qas(reference)["q1"]}
    assert json.load(open(out))["transcription"]["invalid_audio"] == summary["invalid_files"]
    assert not os.path.exists(f"{out}.journal.jsonl")


def test_a_question_id_used_twice_is_an_error_naming_it_and_the_file(folder, tmp_path):
    dataset = json.load(open(TINY, encoding="utf-8"))
    paragraph = dataset["data"][0]["paragraphs"][0]
    paragraph["qas"].append(dict(paragraph["qas"][0], question="The same id again?"))
    duplicated = tmp_path / "dup.json"
    duplicated.write_text(json.dumps(dataset))
    qid = paragraph["qas"][0]["id"]
    with pytest.raises(ValueError, match=rf"dup\.json.*{qid}.*(twice|duplicate)"):
        transcribe_folder(str(folder), str(tmp_path / "t.json"), squad_path=str(duplicated), progress=False)
    assert not (tmp_path / "t.json").exists()


def test_an_unwritable_output_is_an_error_before_any_work(folder, tmp_path):
    from allennlp.common.checks import ConfigurationError

    with pytest.raises(ConfigurationError, match=r"transcribe output file .*: the folder .*missing does not exist"):
        transcribe_folder(str(folder), str(tmp_path / "missing" / "t.json"), squad_path=TINY, progress=False)


def rotate_recordings(src):
    """Gives each recording of a folder the audio of the next one: the same names, other audio."""
    wavs = sorted((src / "wavs").iterdir())
    audio = [wav.read_bytes() for wav in wavs]
    for wav, payload in zip(wavs, audio[1:] + audio[:1]):
        wav.write_bytes(payload)


def test_another_folder_with_the_same_file_ids_is_transcribed_again(folder, wav2vec2_reference, tmp_path):
    """`transcribe A out.json` then `transcribe B out.json`, B's recordings under A's names: B is
    transcribed (not A's transcripts reused), and the output names B and holds B's transcripts."""
    reference, params = wav2vec2_reference
    other = tmp_path / "other"
    shutil.copytree(folder, other)
    rotate_recordings(other)
    expected = tmp_path / "expected.json"
    transcribe_folder(str(other), str(expected), params, squad_path=TINY, progress=False)
    out = tmp_path / "t.json"
    shutil.copy(reference, out)
    summary = transcribe_folder(str(other), str(out), params, squad_path=TINY, progress=False)
    assert (summary["transcribed_now"], summary["reused"], summary["changed_audio"]) == (4, 0, 4)
    written = json.load(open(out))
    assert written["transcription"]["source"] == str(other)
    assert qas(out) == qas(expected) != qas(reference)
    from srcframework.common.files import file_sha256

    assert written["transcription"]["audio_sha256"] == {
        wav.name.split("_")[0]: file_sha256(str(wav)) for wav in (other / "wavs").iterdir()
    }
    # the same folder again: everything reused
    again = transcribe_folder(str(other), str(out), params, squad_path=TINY, progress=False)
    assert (again["transcribed_now"], again["reused"], again["changed_audio"]) == (0, 4, 0)


def test_a_journal_of_another_folder_is_not_reused(folder, wav2vec2_reference, tmp_path):
    """A run on A stopped by a bad recording leaves a journal; a run on B (same file ids, other
    audio) into the same output transcribes B's recordings instead of taking A's from the journal."""
    reference, params = wav2vec2_reference
    first = tmp_path / "first"
    shutil.copytree(folder, first)
    (first / "wavs" / "DEV000004_SPK103.wav").write_bytes(b"")
    out = tmp_path / "t.json"
    with pytest.raises(ValueError, match="DEV000004_SPK103.wav"):
        transcribe_folder(str(first), str(out), params, squad_path=TINY, batch_size=1, progress=False)
    assert len((tmp_path / "t.json.journal.jsonl").read_text().splitlines()) == 4  # header and 3 rows
    other = tmp_path / "other"
    shutil.copytree(folder, other)
    rotate_recordings(other)
    expected = tmp_path / "expected.json"
    transcribe_folder(str(other), str(expected), params, squad_path=TINY, progress=False)
    summary = transcribe_folder(str(other), str(out), params, squad_path=TINY, progress=False)
    assert (summary["transcribed_now"], summary["reused"], summary["changed_audio"]) == (4, 0, 3)
    assert qas(out) == qas(expected)


def test_a_recognizer_model_changed_in_place_is_another_job(folder, wav2vec2_reference, tmp_path):
    """The key covers the fingerprint of the folder the recognizer config names."""
    reference, params = wav2vec2_reference
    model = tmp_path / "model"
    shutil.copytree(params["model_name_or_path"], model)
    moved = dict(params, model_name_or_path=str(model))
    out = tmp_path / "t.json"
    transcribe_folder(str(folder), str(out), moved, squad_path=TINY, progress=False)
    assert str(model) in json.load(open(out))["transcription"]["recognizer_files"]
    (model / "notes.txt").write_text("retrained")
    summary = transcribe_folder(str(folder), str(out), moved, squad_path=TINY, progress=False)
    assert (summary["transcribed_now"], summary["reused"]) == (4, 0)


def test_silent_audio_is_named_or_counted_under_skip_invalid(folder, wav2vec2_reference, tmp_path):
    import soundfile

    from srcframework.data.errors import DatasetError

    reference, params = wav2vec2_reference
    src = tmp_path / "src"
    shutil.copytree(folder, src)
    soundfile.write(str(src / "wavs" / "DEV000002_SPK103.wav"), numpy.zeros(16000, dtype=numpy.int16), 16000)
    soundfile.write(str(src / "wavs" / "DEV000003_SPK101.wav"), numpy.full(8000, 2, dtype=numpy.int16), 16000)
    out = tmp_path / "t.json"
    with pytest.raises(DatasetError, match=r"DEV000002_SPK103\.wav.*silent \(all 16000 samples are zero\)"):
        transcribe_folder(str(src), str(out), params, squad_path=TINY, batch_size=1, progress=False)
    summary = transcribe_folder(str(src), str(out), params, squad_path=TINY, skip_invalid=True, progress=False)
    listed = {row["fid"]: row["error"] for row in summary["invalid_files"]}
    assert sorted(listed) == ["DEV000002", "DEV000003"]
    assert "all 16000 samples are zero" in listed["DEV000002"]
    assert "no sample reaches -80 dBFS" in listed["DEV000003"]
    assert set(qas(out)) == {"q1", "q4"}


def test_skip_invalid_counts_add_up(spoiled, wav2vec2_reference, tmp_path):
    """questions = transcribed now + reused, the three bad recordings of four in neither, in a
    fresh run and in a rerun that reuses the output."""
    reference, params = wav2vec2_reference
    out = tmp_path / "t.json"
    counts = ("questions", "transcribed_now", "reused", "invalid_audio")
    summary = transcribe_folder(str(spoiled), str(out), params, squad_path=TINY, batch_size=2,
                                skip_invalid=True, progress=False)
    assert tuple(summary[key] for key in counts) == (1, 1, 0, 3)
    again = transcribe_folder(str(spoiled), str(out), params, squad_path=TINY, batch_size=2,
                              skip_invalid=True, progress=False)
    assert tuple(again[key] for key in counts) == (1, 0, 1, 3)
