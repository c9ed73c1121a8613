import argparse
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from srcframework.commands.synthesize_speech import SynthesizeSpeech, run
from srcframework.data.squad_src_layout import read_fid2qid
from srcframework.jobs.synthesis import synthesize_questions
from tests.conftest import FIXTURES, ROOT

DEFAULT_DEV = ROOT / "srcframework" / "data" / "default" / "dev.json"
# the allennlp command line with this file's subcommand registered (whether or not the package
# imports it yet)
CLI = [sys.executable, "-c",
       "import srcframework.commands.synthesize_speech; from allennlp.commands import main; main()"]


def parse(*arguments):
    parser = argparse.ArgumentParser()
    SynthesizeSpeech().add_subparser(parser.add_subparsers())
    return parser.parse_args(["synthesize-speech", *arguments])


def test_arguments_and_summary(tmp_path, capsys):
    out = tmp_path / "src"
    args = parse(str(FIXTURES / "squad_tiny.json"), str(out), "--voices", "flite:slt,espeak_ng:en-gb",
                 "--limit", "3", "--seed", "2", "--no-progress")
    assert (args.split, args.workers, args.limit, args.seed) == ("dev", 1, 3, 2)
    summary = run(args)
    printed = capsys.readouterr().out.strip().splitlines()
    assert json.loads(printed[-1]) == summary
    assert "audio seconds per second" in printed[1] and printed[2].startswith("questions per speaker: ")
    assert summary["questions"] == 3 and sum(summary["per_speaker"].values()) == 3
    assert set(summary["per_speaker"]) == {"SPK105", "SPK114"}
    assert parse("a.json", "out").voices == "flite:kal16,flite:awb,flite:rms,flite:slt"


@pytest.mark.slow
def test_killed_run_completes_on_rerun_without_redoing_anything(tmp_path):
    """SIGKILL a real `allennlp synthesize-speech` run once some WAVs exist; the rerun makes only
    the missing ones, and the folder equals an uninterrupted run's."""
    voices, limit = "flite:awb,flite:rms,flite:slt", 60
    reference = tmp_path / "reference"
    synthesize_questions(str(DEFAULT_DEV), str(reference), voices, limit=limit, progress=False)
    out = tmp_path / "killed"
    command = CLI + ["synthesize-speech", str(DEFAULT_DEV), str(out), "--voices", voices, "--limit", str(limit),
                     "--no-progress"]
    process = subprocess.Popen(command, cwd=ROOT, env=dict(os.environ, OMP_NUM_THREADS="1"))
    wavs = out / "wavs"
    deadline = time.time() + 900  # a loaded machine can take minutes to import the package
    def finished():  # complete WAVs only: a WAV being written is a hidden temporary file
        return [n for n in os.listdir(wavs) if n.endswith(".wav") and not n.startswith(".")] if wavs.is_dir() else []

    while time.time() < deadline and process.poll() is None:
        if len(finished()) >= 5:
            break
        time.sleep(0.01)
    assert process.poll() is None, "the run finished before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait()
    done_before = finished()
    assert 5 <= len(done_before) < limit and not (out / "fid2qid_dev.csv").exists()
    summary = synthesize_questions(str(DEFAULT_DEV), str(out), voices, limit=limit, progress=False)
    assert summary["synthesized_now"] == limit - len(done_before) and summary["reused"] == len(done_before)
    assert sorted(os.listdir(wavs)) == sorted(os.listdir(reference / "wavs"))
    for name in os.listdir(wavs):
        assert (wavs / name).read_bytes() == (reference / "wavs" / name).read_bytes()
    assert read_fid2qid(str(out / "fid2qid_dev.csv")) == read_fid2qid(str(reference / "fid2qid_dev.csv"))
    for name in ("speakers.tsv", "squad.json"):
        assert (out / name).read_bytes() == (reference / name).read_bytes()
