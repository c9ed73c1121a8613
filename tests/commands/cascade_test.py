import argparse
import json
import os

import numpy
import pytest
from allennlp.predictors import Predictor

from srcframework.commands.cascade import Cascade, run
from srcframework.metrics.squad import exact_match_score, f1_score, metric_max_over_ground_truths
from srcframework.common.audio import write_wav_atomic
from srcframework.jobs.synthesis import synthesize_questions
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "squad_tiny.json")


def parse(*arguments):
    parser = argparse.ArgumentParser()
    Cascade().add_subparser(parser.add_subparsers())
    return parser.parse_args(["cascade", *arguments])


def read_lines(path):
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def test_transcribe_answer_and_score_in_one_call(tmp_path, tiny_archive, capsys):
    """Four tiny-fixture questions read by flite kal16 (US) and awb (UK), one of them replaced by
    a faint hiss that PocketSphinx hears nothing in, through PocketSphinx and the tiny BiDAF."""
    src = tmp_path / "src"
    synthesize_questions(TINY, str(src), "flite:kal16,flite:awb", limit=4, progress=False)
    hiss = numpy.random.RandomState(0).randn(16000).astype(numpy.float32) * 0.001
    write_wav_atomic(str(src / "wavs" / "DEV000004_SPK103.wav"), hiss, 16000)
    out = tmp_path / "cascade"
    args = parse(str(src), str(tiny_archive), str(out), "--recognizer", "pocketsphinx", "--squad", TINY,
                 "--batch-size", "2", "--no-progress")
    assert args.cuda_device == -1
    metrics = run(args)
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["questions"] == 4

    transcripts = json.load(open(out / "transcripts.json"))
    spoken = {qa["id"]: qa for a in transcripts["data"] for p in a["paragraphs"] for qa in p["qas"]}
    assert set(spoken) == {"q1", "q2", "q3"}
    assert [qa["id"] for qa in transcripts["transcription"]["empty_transcripts"]] == ["q4"]

    lines = read_lines(out / "predictions.jsonl")
    assert [line["id"] for line in lines] == ["q1", "q2", "q3", "q4"]
    predictor = Predictor.from_path(str(tiny_archive), "span_qa")
    for line in lines[:3]:
        qa = spoken[line["id"]]
        assert line["question"] == qa["question"] and line["original_question"] == qa["original_question"]
        assert line["groups"] == {"speaker": qa["speaker"], "country": qa["country"], "gender": "M"}
        assert line["fid"] == qa["fid"]
        context = next(p["context"] for a in transcripts["data"] for p in a["paragraphs"] if qa in p["qas"])
        # the model answered the transcript, as `allennlp predict` would
        direct = predictor.predict_json({"context": context, "question": qa["question"]})
        assert line["prediction"] == direct["best_span_str"]
    assert lines[3]["prediction"] is None and lines[3]["question"] == ""

    em = [metric_max_over_ground_truths(exact_match_score, l["prediction"], l["answers"]) if l["prediction"] else 0
          for l in lines]
    f1 = [metric_max_over_ground_truths(f1_score, l["prediction"], l["answers"]) if l["prediction"] else 0
          for l in lines]
    written = json.load(open(out / "metrics.json"))
    assert written == json.loads(json.dumps(metrics))
    assert metrics["questions"] == 4 and metrics["unanswered"] == 1
    assert metrics["em"] == pytest.approx(100 * sum(em) / 4) and metrics["f1"] == pytest.approx(100 * sum(f1) / 4)
    assert set(metrics["by_country"]) == {"US", "UK"} and set(metrics["by_speaker"]) == {"SPK101", "SPK103"}
    assert metrics["by_country"]["UK"]["f1"] == pytest.approx(100 * (f1[1] + f1[3]) / 2)
    wer_report = json.load(open(out / "transcripts.json.wer.json"))
    for country in ("US", "UK"):
        assert metrics["by_country"][country]["wer"] == pytest.approx(wer_report["by_country"][country]["wer"])
    assert metrics["recognizer"] == {"type": "pocketsphinx"}
    for name in ("report.json", "report.md", "f1_by_country.png"):
        assert (out / name).stat().st_size > 0

    again = run(args)  # the transcripts are reused; the answers are the same
    assert again["transcription"]["transcribed_now"] == 0 and again["transcription"]["reused"] == 4
    assert read_lines(out / "predictions.jsonl") == lines


def test_missing_archive_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="model archive not found: .*nothing.tar.gz"):
        run(parse(str(tmp_path), str(tmp_path / "nothing.tar.gz"), str(tmp_path / "out"), "--no-progress"))


@pytest.fixture(scope="module")
def transcribed(tmp_path_factory):
    """Two tiny-fixture questions read by flite and an `allennlp transcribe` output of them."""
    from srcframework.jobs.transcription import transcribe_folder

    root = tmp_path_factory.mktemp("transcribed")
    src = root / "src"
    synthesize_questions(TINY, str(src), "flite:kal16,flite:awb", limit=2, progress=False)
    transcripts = root / "transcripts.json"
    transcribe_folder(str(src), str(transcripts), "pocketsphinx", squad_path=TINY, progress=False)
    return src, transcripts


def test_transcripts_option_reuses_a_transcribe_output(tmp_path, tiny_archive, transcribed):
    src, transcripts = transcribed
    out = tmp_path / "cascade"
    metrics = run(parse(str(src), str(tiny_archive), str(out), "--transcripts", str(transcripts), "--no-progress"))
    assert metrics["transcription"]["transcribed_now"] == 0 and metrics["transcription"]["reused"] == 2
    assert metrics["transcription"]["transcripts_file"] == str(transcripts)
    assert not (out / "transcripts.json").exists()  # nothing was transcribed again
    spoken = {qa["id"]: qa["question"] for a in json.load(open(transcripts))["data"]
              for p in a["paragraphs"] for qa in p["qas"]}
    lines = read_lines(out / "predictions.jsonl")
    assert {line["id"]: line["question"] for line in lines} == spoken
    assert all(line["prediction"] is not None for line in lines)
    assert metrics["questions"] == 2 and metrics["recognizer"] == {"type": "pocketsphinx"}


def test_the_transcripts_file_is_read_once_and_the_folder_joined_once(tmp_path, tiny_archive, transcribed, monkeypatch):
    """With `--transcripts`, the cascade parses the file once (its questions and summary; the model's
    reader reads it to answer) and joins the folder once (to check the recordings)."""
    from srcframework.data.squad_src_layout import SquadSrcFolder
    from srcframework.jobs import cascade

    src, transcripts = transcribed
    reads, joins = [], []
    parse_file, join = cascade.transcript_questions, SquadSrcFolder.join
    monkeypatch.setattr(cascade, "transcript_questions", lambda path: reads.append(path) or parse_file(path))
    monkeypatch.setattr(SquadSrcFolder, "join", lambda self, **kwargs: joins.append(self.folder) or join(self, **kwargs))
    run(parse(str(src), str(tiny_archive), str(tmp_path / "cascade"), "--transcripts", str(transcripts), "--no-progress"))
    assert reads == [str(transcripts)] and joins == [str(src)]


def test_transcripts_of_another_folder_or_with_a_duplicated_id_are_errors(tmp_path, tiny_archive, transcribed):
    src, transcripts = transcribed
    with pytest.raises(ValueError, match=r"transcripts.json: these are transcripts of .*src, not of .*elsewhere"):
        run(parse(str(tmp_path / "elsewhere"), str(tiny_archive), str(tmp_path / "o"), "--transcripts",
                  str(transcripts), "--no-progress"))
    dataset = json.load(open(transcripts))
    qas = dataset["data"][0]["paragraphs"][0]["qas"]
    qas.append(dict(qas[0]))
    duplicated = tmp_path / "dup.json"
    duplicated.write_text(json.dumps(dataset))
    with pytest.raises(ValueError, match=rf"dup\.json \(question id '{qas[0]['id']}'\): the question id is used twice"):
        run(parse(str(src), str(tiny_archive), str(tmp_path / "o"), "--transcripts", str(duplicated), "--no-progress"))
    assert not (tmp_path / "o").exists()


def test_a_run_that_stops_on_a_bad_question_leaves_no_results(tmp_path, tiny_archive, transcribed):
    """An earlier run's results are removed at the start, and the failed run writes none."""
    src, transcripts = transcribed
    out = tmp_path / "cascade"
    run(parse(str(src), str(tiny_archive), str(out), "--transcripts", str(transcripts), "--no-progress"))
    assert (out / "metrics.json").exists()
    dataset = json.load(open(transcripts))
    dataset["data"][0]["paragraphs"][0]["qas"][0]["answers"][0]["answer_start"] += 1  # the reader refuses it
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(dataset))
    with pytest.raises(ValueError, match="answer_start"):
        run(parse(str(src), str(tiny_archive), str(out), "--transcripts", str(bad), "--no-progress"))
    assert sorted(os.listdir(out)) == []


def test_an_unwritable_output_folder_is_an_error_before_any_work(tmp_path):
    from allennlp.common.checks import ConfigurationError

    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigurationError, match="cascade output folder .*file/out: .*file is a file, not a folder"):
        run(parse(str(tmp_path), str(tmp_path / "nothing.tar.gz"), str(tmp_path / "file" / "out"), "--no-progress"))
    with pytest.raises(ConfigurationError, match="cascade output folder /proc/cascade: cannot write in the folder /proc"):
        run(parse(str(tmp_path), str(tmp_path / "nothing.tar.gz"), "/proc/cascade", "--no-progress"))


def test_transcripts_of_recordings_that_changed_since_are_an_error(tmp_path, tiny_archive, transcribed):
    """The transcript file records the sha256 of each recording; `--transcripts` refuses a file
    whose recordings are no longer those in the folder (same names, other audio)."""
    import shutil

    src, transcripts = transcribed
    copy = tmp_path / "src"
    shutil.copytree(src, copy)
    dataset = json.load(open(transcripts))
    dataset["transcription"]["source"] = str(copy)
    moved = tmp_path / "moved.json"
    moved.write_text(json.dumps(dataset))
    wavs = sorted((copy / "wavs").iterdir())
    wavs[0].write_bytes(wavs[1].read_bytes())  # the first file id now holds the second recording
    with pytest.raises(ValueError, match=rf"moved\.json \(question id 'q1'\): .*{wavs[0].name} is not the "
                                         "recording that was transcribed \\(its sha256 differs\\)"):
        run(parse(str(copy), str(tiny_archive), str(tmp_path / "o"), "--transcripts", str(moved), "--no-progress"))
