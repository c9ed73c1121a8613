"""`benchmarks/noise_throughput.py --quick`: every table, the engines-alone table included, on a few
XQuAD questions. No timing is asserted."""
import importlib.util
import json
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("noise_throughput", ROOT / "benchmarks" / "noise_throughput.py")
noise_throughput = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(noise_throughput)

XQUAD = noise_throughput.DATA / "xquad" / "xquad.en.json"


def test_subset_file_keeps_the_first_questions(tmp_path):
    if not XQUAD.is_file():
        pytest.skip(f"{XQUAD} is absent")
    path = tmp_path / "subset.json"
    assert noise_throughput.subset_file(path, 5) == 5
    data = json.loads(path.read_text())
    ids = [qa["id"] for article in data["data"] for paragraph in article["paragraphs"] for qa in paragraph["qas"]]
    assert len(ids) == 5


@pytest.mark.slow
def test_quick_run_prints_every_table(tmp_path):
    missing = [name for name in ("apertium", "flite") if shutil.which(name) is None]
    if missing or not XQUAD.is_file():
        pytest.skip(f"needs {', '.join(missing) or XQUAD}")
    pytest.importorskip("pocketsphinx")
    out = tmp_path / "noise.json"
    done = subprocess.run([sys.executable, "benchmarks/noise_throughput.py", "--quick", "--json", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    lines = done.stdout.splitlines()
    assert "| source | questions | questions/s |" in lines
    assert any(line.startswith("| recogniser | workers | questions/s | ratio to baseline |") for line in lines)
    assert any(line.startswith("| source | workers | questions | raw q/s | net q/s | net per worker | net per core |")
               for line in lines)
    for source in ("keyboard", "misspelling", "back_translation", "asr"):
        for workers in (1, 2):
            assert any(line.startswith(f"| {source} | {workers} | ") for line in lines), (source, workers)
    assert any(line.startswith("ASR engines alone: flite ") for line in lines)
    figures = json.loads(out.read_text())
    assert figures["cli_asr_workers_2"]["questions"] == 2 and figures["engine_pocketsphinx_questions_per_s"] > 0
