"""`benchmarks/growth.py`: the exponent fit, the inputs it writes, and a run of every job at two tiny
sizes whose tables and exponent lines exist. No timing is asserted."""
import importlib.util
import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("growth", ROOT / "benchmarks" / "growth.py")
growth = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(growth)

needs_dev = pytest.mark.skipif(not growth.SQUAD_DEV.is_file(), reason=f"{growth.SQUAD_DEV} is absent")


def test_exponent_is_the_log_log_slope():
    assert growth.exponent([1, 2, 4, 8], [3, 6, 12, 24]) == pytest.approx(1.0)
    assert growth.exponent([1, 2, 4], [5, 20, 80]) == pytest.approx(2.0)
    assert growth.exponent([1, 2], [-1.0, 2.0]) is None
    assert growth.shown(1.5) == "1.50 (ABOVE 1.1)" and growth.shown(1.0) == "1.00" and growth.shown(None) == "n/a"


@needs_dev
def test_subsets_and_long_contexts():
    dev = growth.load_dev()
    subset = growth.first_questions(dev, 7)
    assert sum(len(p["qas"]) for a in subset["data"] for p in a["paragraphs"]) == 7
    from srcframework.data.dataset_readers.squad import SquadReader

    one = growth.long_context(dev, 500)
    paragraph = one["data"][0]["paragraphs"][0]
    assert len(SquadReader().tokenize_context(paragraph["context"])) == 500 and len(paragraph["qas"]) == 1
    assert growth.reader_config()["passage_length_limit"] is None


@needs_dev
@pytest.mark.slow
def test_quick_run_prints_each_job_and_its_exponents(tmp_path):
    out = tmp_path / "growth.json"
    done = subprocess.run([sys.executable, "benchmarks/growth.py", "--quick", "--json", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    lines = done.stdout.splitlines()
    for job, (_, quick, unit) in growth.JOBS.items():
        assert f"| {unit} | raw s | net s | s inside allennlp main | net ms per unit | peak RSS MB | net MB |" in lines
        assert any(line.startswith(f"exponent {job} time: raw ") and ", net " in line for line in lines), job
        assert any(line.startswith(f"exponent {job} memory: raw ") for line in lines), job
        for size in quick:
            assert any(line.startswith(f"| {size:,} | ") for line in lines)
    assert any(line.startswith("net and inside-main exponents above 1.1: ") for line in lines)
    results = json.loads(out.read_text())["results"]
    assert [r["job"] for r in results] == list(growth.JOBS)
    for result in results:
        assert [row["size"] for row in result["rows"]] == growth.JOBS[result["job"]][1]
        assert all(row["seconds"] > 0 and row["peak_mb"] > 0 for row in result["rows"])
