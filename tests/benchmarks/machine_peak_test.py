"""`benchmarks/machine_peak.py`: the peak and the step's FLOPs at tiny size (the tiny fixture, brief
timings); the printed tables exist. No timing is asserted."""
import importlib.util
import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("machine_peak", ROOT / "benchmarks" / "machine_peak.py")
machine_peak = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(machine_peak)


def test_op_names_map_to_categories():
    assert machine_peak.category("aten::mkldnn_rnn_layer_backward") == "LSTM"
    assert machine_peak.category("aten::mkldnn_convolution") == "char CNN"
    assert machine_peak.category("aten::bmm") == "attention/similarity"
    assert machine_peak.category("aten::addmm") == "highway/linear"
    assert machine_peak.category("aten::native_dropout") == "dropout"
    assert machine_peak.category("aten::embedding") == "other"


def test_peak_gflops_in_this_process_keeps_the_thread_count():
    import torch

    before = torch.get_num_threads()
    found = machine_peak.peak_gflops(1, repeats=1, seconds=0.001, shapes={"small": (8, 8, 8)})
    assert set(found) == {"small"} and found["small"] > 0
    assert torch.get_num_threads() == before


def test_lstm_and_conv_flops_by_formula():
    import torch

    model = torch.nn.ModuleDict({"lstm": torch.nn.LSTM(6, 4, batch_first=True), "conv": torch.nn.Conv1d(3, 5, 2)})
    counts = {"lstm_input": 0, "lstm_recurrent": 0, "conv": 0}
    handles = machine_peak.lstm_formula_hooks(model, counts)
    model["lstm"](torch.zeros(2, 7, 6))
    model["conv"](torch.zeros(2, 3, 10))
    for handle in handles:
        handle.remove()
    assert counts == {"lstm_input": 2 * 4 * 4 * 6 * 2 * 7, "lstm_recurrent": 2 * 4 * 4 * 4 * 2 * 7,
                      "conv": 2 * 3 * 2 * 5 * 9 * 2}


@pytest.mark.slow
def test_quick_run_prints_the_peak_the_step_and_its_profile(tmp_path):
    out = tmp_path / "peak.json"
    done = subprocess.run([sys.executable, "benchmarks/machine_peak.py", "--quick", "--threads", "1",
                           "--step-threads", "1", "--json", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    lines = done.stdout.splitlines()
    assert "| product | 1 thread |" in lines
    assert any(line.startswith("| large 2048 x 2048 @ 2048 x 2048 | ") for line in lines)
    assert any(line.startswith("| LSTM recurrences | ") and "formula" in line for line in lines)
    assert any("torch.profiler (with_flops)" in line for line in lines)
    assert any(line.startswith("achieved: ") and "% of peak" in line and "size-matched peak" in line for line in lines)
    for name in machine_peak.CATEGORY_NAMES:
        assert any(line.startswith(f"| {name} | ") for line in lines), name
    figures = json.loads(out.read_text())
    assert figures["step"]["steps"] == 2 and figures["step"]["lstm_flops"] > 0 and figures["achieved_gflops"] > 0
