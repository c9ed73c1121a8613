"""`benchmarks/speech_pass.py` on a few synthesized recordings: it trains through the real config
and prints the pass and its ratio to the limit. No timing is asserted."""
import importlib.util
import json
import shutil
import subprocess
import sys

import pytest

from tests.conftest import FIXTURES, ROOT

_spec = importlib.util.spec_from_file_location("speech_pass", ROOT / "benchmarks" / "speech_pass.py")
speech_pass = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(speech_pass)


def test_durations_are_read_as_seconds():
    assert speech_pass.seconds_of("0:14:03.500000") == pytest.approx(843.5)
    assert speech_pass.seconds_of("1:00:00") == 3600


@pytest.mark.slow
def test_a_two_batch_pass_through_the_pretraining_config(tmp_path):
    if shutil.which("flite") is None or shutil.which("sox") is None:
        pytest.skip("needs flite and sox")
    from srcframework.jobs.synthesis import synthesize_questions

    src = tmp_path / "src"
    synthesize_questions(str(FIXTURES / "squad_tiny.json"), str(src), "flite:kal16",
                         limit=4, progress=False)
    out = tmp_path / "pass.json"
    done = subprocess.run(
        [sys.executable, "benchmarks/speech_pass.py", "--train-data", str(src / "fid2qid_dev.csv"), "--squad",
         str(FIXTURES / "squad_tiny.json"), "--batches-per-epoch", "1", "--epochs", "2", "--threads", "1",
         "--output", str(tmp_path / "run"), "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert "| training (AllenNLP's training_duration) |" in done.stdout
    figures = json.loads(out.read_text())
    assert figures["batches"] == 2 and figures["recordings"] == 4 and figures["utterances"] == 8
    assert figures["training_seconds"] > 0 and figures["limit_minutes"] == 15.0
    # the run used the real config: its own reader and model, the threads and epochs asked for
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["dataset_reader"]["type"] == "squad_src" and config["model"]["type"] == "speecht5_ctc"
    assert config["trainer"]["num_epochs"] == 2 and {"type": "torch_threads", "threads": 1} in config["trainer"]["callbacks"]
    assert "validation_data_path" not in config or config["validation_data_path"] is None


def test_a_missing_training_file_is_one_line(tmp_path):
    done = subprocess.run([sys.executable, "benchmarks/speech_pass.py", "--train-data", str(tmp_path / "none.csv"),
                           "--output", str(tmp_path / "run")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert done.stderr.strip().splitlines()[-1].startswith(f"speech_pass: no training file {tmp_path / 'none.csv'}")
