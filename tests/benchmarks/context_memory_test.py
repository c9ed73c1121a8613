"""`benchmarks/context_memory.py` at two small sizes: it prints each size's MB and the exponent.
No figure is asserted beyond being a number."""
import importlib.util
import json
import subprocess
import sys

import pytest

from tests.conftest import FIXTURES, ROOT

_spec = importlib.util.spec_from_file_location("context_memory", ROOT / "benchmarks" / "context_memory.py")
context_memory = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(context_memory)


def test_exponent_is_the_log_log_slope():
    assert context_memory.exponent([1, 2, 4], [3, 6, 12]) == pytest.approx(1.0)
    assert context_memory.exponent([10, 100], [1, 100]) == pytest.approx(2.0)


@pytest.mark.slow
def test_two_sizes_on_the_tiny_fixture(tmp_path, tiny_archive):
    out = tmp_path / "memory.json"
    done = subprocess.run([sys.executable, "benchmarks/context_memory.py", "--sizes", "20", "60", "--archive",
                           str(tiny_archive), "--squad", str(FIXTURES / "squad_tiny.json"), "--json", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "| context words | MB above rest |" in done.stdout and "exponent of memory" in done.stdout
    figures = json.loads(out.read_text())
    assert [size for size, _ in figures["rows"]] == [20, 60] and isinstance(figures["exponent"], float)


def test_too_few_sizes_is_one_line(tmp_path):
    done = subprocess.run([sys.executable, "benchmarks/context_memory.py", "--sizes", "20"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and done.stderr.strip().splitlines()[-1] == "context_memory: give at least two --sizes"
