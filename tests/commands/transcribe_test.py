import argparse
import json

import pytest

from srcframework.commands.transcribe import Transcribe, run
from srcframework.jobs.synthesis import synthesize_questions
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "squad_tiny.json")


def parse(*arguments):
    parser = argparse.ArgumentParser()
    Transcribe().add_subparser(parser.add_subparsers())
    return parser.parse_args(["transcribe", *arguments])


def test_defaults():
    args = parse("src", "out.json")
    assert (args.recognizer, args.split, args.squad) == ("pocketsphinx", "dev", None)
    assert (args.workers, args.batch_size) == (1, 8)


def test_transcribe_prints_wer_by_group(tmp_path, capsys):
    src = tmp_path / "src"
    synthesize_questions(TINY, str(src), "flite:kal16,flite:awb", limit=2, progress=False)
    out = tmp_path / "transcripts.json"
    summary = run(parse(str(src), str(out), "--recognizer", '{"type": "pocketsphinx"}', "--batch-size", "2",
                        "--no-progress"))
    printed = capsys.readouterr().out.strip().splitlines()
    assert json.loads(printed[-1]) == summary
    report = json.load(open(f"{out}.wer.json"))
    assert printed[0].startswith("WER (lowercase")
    assert f"  overall: {report['overall']['wer']:.2f}% over 2 questions" in printed
    assert f"  country UK: {report['by_country']['UK']['wer']:.2f}% (1 questions)" in printed
    assert f"  speaker SPK101: {report['by_speaker']['SPK101']['wer']:.2f}% (1 questions)" in printed
    assert any("real-time factor" in line for line in printed)
    assert summary["questions"] == 2 and summary["no_audio"] == 0  # squad.json of the folder: 2 questions


def test_bad_recognizer_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="unknown recognizer 'whisper'"):
        run(parse(str(tmp_path), str(tmp_path / "o.json"), "--recognizer", "whisper", "--no-progress"))


def test_skip_invalid_lists_the_bad_recordings(tmp_path, capsys):
    src = tmp_path / "src"
    synthesize_questions(TINY, str(src), "flite:kal16,flite:awb", limit=2, progress=False)
    bad = src / "wavs" / "DEV000002_SPK103.wav"
    bad.write_bytes(b"")
    out = tmp_path / "transcripts.json"
    assert not parse(str(src), str(out)).skip_invalid
    summary = run(parse(str(src), str(out), "--skip-invalid", "--no-progress"))
    printed = capsys.readouterr().out
    assert summary["questions"] == 1 and summary["invalid_audio"] == 1
    assert f"1 recordings left out (--skip-invalid):\n  {bad}: audio file is empty (0 bytes)\n" in printed  # the path once


def test_a_missing_output_folder_is_an_error_before_any_work(tmp_path):
    from allennlp.common.checks import ConfigurationError

    with pytest.raises(ConfigurationError, match="transcribe output file .*/nowhere/t.json: the folder .* does not exist"):
        run(parse(str(tmp_path / "no_src"), str(tmp_path / "nowhere" / "t.json"), "--no-progress"))


def test_a_second_folder_into_the_same_output_is_transcribed_not_reused(tmp_path, capsys):
    """`transcribe A out.json` then `transcribe B out.json`, B with A's file ids and other audio:
    B is transcribed, the summary says so, and the output names B."""
    import shutil

    first, second = tmp_path / "A", tmp_path / "B"
    synthesize_questions(TINY, str(first), "flite:kal16,flite:awb", limit=2, progress=False)
    shutil.copytree(first, second)
    one, two = sorted((second / "wavs").iterdir())
    audio = one.read_bytes()
    one.write_bytes(two.read_bytes())
    two.write_bytes(audio)
    out = tmp_path / "out.json"
    run(parse(str(first), str(out), "--no-progress"))
    capsys.readouterr()
    summary = run(parse(str(second), str(out), "--no-progress"))
    printed = capsys.readouterr().out
    assert "2 questions transcribed (2 now, 0 reused)" in printed
    assert "2 recordings are not those an earlier run transcribed into this output" in printed
    assert (summary["transcribed_now"], summary["reused"]) == (2, 0)
    assert json.load(open(out))["transcription"]["source"] == str(second)
