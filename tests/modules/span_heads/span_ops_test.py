"""`mask_logits`, `span_loss`, and `best_span` against the full n x n baseline kept in
benchmarks/span_decoding.py, and its memory."""
import importlib.util
import json
import resource
import subprocess
import sys

import pytest
import torch

from srcframework.modules.span_heads.span_ops import best_span, mask_logits, span_loss
from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("span_decoding", ROOT / "benchmarks" / "span_decoding.py")
span_decoding = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(span_decoding)
full_matrix_best_span = span_decoding.full_matrix_best_span


@pytest.mark.parametrize("seed", range(4))
def test_same_spans_as_the_full_matrix_on_random_logits(seed):
    generator = torch.Generator().manual_seed(seed)
    for _ in range(300):
        batch = int(torch.randint(1, 5, (1,), generator=generator))
        length = int(torch.randint(1, 80, (1,), generator=generator))
        max_span_length = int(torch.randint(0, 90, (1,), generator=generator))
        if seed % 2:  # small integers: many ties, broken towards the smallest start, then end
            start = torch.randint(-3, 3, (batch, length), generator=generator).float()
            end = torch.randint(-3, 3, (batch, length), generator=generator).float()
        else:
            start, end = torch.randn(batch, length, generator=generator), torch.randn(batch, length, generator=generator)
        if length > 2 and seed >= 2:  # padded rows, as the heads mask them
            mask = torch.arange(length) < torch.randint(1, length, (batch, 1), generator=generator)
            start, end = mask_logits(start, mask), mask_logits(end, mask)
        expected = full_matrix_best_span(start, end, max_span_length)
        assert torch.equal(best_span(start, end, max_span_length), expected), (batch, length, max_span_length)


def test_limit_and_order():
    start = torch.tensor([[-9.0, 0.0, 5.0, 0.0]])  # (1, 0) would score 9 if order were ignored
    end = torch.tensor([[9.0, 0.0, 0.0, 1.0]])
    assert best_span(start, end, 0).tolist() == [[2, 3]]
    assert best_span(start, end, 1).tolist() == [[2, 2]]
    assert best_span(start, end, 2).tolist() == [[2, 3]]
    assert best_span(start, end, 100).tolist() == [[2, 3]]


MEMORY_PROBE = """
import json, resource, sys, torch
from srcframework.modules.span_heads.span_ops import best_span
length, limit = int(sys.argv[1]), int(sys.argv[2])
start, end = torch.randn(1, length), torch.randn(1, length)
best_span(start[:, :64], end[:, :64], limit)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
span = best_span(start, end, limit).tolist()
print(json.dumps({"kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before, "span": span}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("limit", [30, 0])
def test_memory_grows_with_length_times_limit_not_length_squared(limit):
    # 12,000 positions: a full score matrix alone is 12,000^2 floats = 549 MiB
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, "12000", str(limit)], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["kib"] < 40 * 1024, f"decoding 12,000 positions grew the peak memory by {result['kib']} KiB"
    start, end = result["span"][0]
    assert 0 <= start <= end < 12000 and (limit == 0 or end - start < limit)


@pytest.mark.slow
def test_a_200000_character_context_evaluates(tiny_archive, tmp_path):
    """`allennlp evaluate` of the tiny BiDAF on one question whose context has 200,000 characters
    (40,000 tokens: a full score matrix would be 6.4 GB of floats)."""
    filler = "The old quay of Velmont was rebuilt. "
    context = (filler * 2700 + "The harbour was dredged in 1882 by Ossia Brandt. " + filler * 3000)[:200000]
    answer_start = context.index("1882")
    data = {"version": "1.1", "data": [{"title": "long", "paragraphs": [{"context": context, "qas": [
        {"id": "long1", "question": "When was the harbour dredged?", "answers": [{"text": "1882", "answer_start": answer_start}]}
    ]}]}]}
    data_file = tmp_path / "long.json"
    data_file.write_text(json.dumps(data))
    metrics_file = tmp_path / "metrics.json"

    def limit_memory():  # 4 GiB of data: ample for this, too little for a 6.4 GB score matrix
        resource.setrlimit(resource.RLIMIT_DATA, (4 << 30, 4 << 30))

    done = subprocess.run(
        [sys.executable, "-m", "allennlp", "evaluate", str(tiny_archive), str(data_file), "--output-file", str(metrics_file)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, preexec_fn=limit_memory,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    metrics = json.loads(metrics_file.read_text())
    assert 0.0 <= metrics["f1"] <= 1.0 and metrics["loss"] == metrics["loss"]


def test_a_fully_masked_window_decodes_to_a_span_inside_it():
    """Padding windows are fully masked: their best span must still lie within the window."""
    fill = torch.finfo(torch.float32).min
    logits = torch.full((1, 24), fill)
    start, end = best_span(logits, logits.clone(), 10)[0].tolist()
    assert 0 <= start <= end < 24


def test_mask_logits_fills_the_padding_with_the_dtype_minimum():
    logits = torch.tensor([[1.5, -2.0, 3.0]], dtype=torch.float64)
    mask = torch.tensor([[True, True, False]])
    masked = mask_logits(logits, mask)
    assert masked.dtype == torch.float64
    assert masked.tolist() == [[1.5, -2.0, torch.finfo(torch.float64).min]]
    assert logits[0, 2] == 3.0  # the input is left as it was
    assert torch.softmax(masked, -1)[0, 2] == 0.0


def test_padding_never_wins_a_span():
    start = mask_logits(torch.tensor([[0.0, 1.0, 9.0]]), torch.tensor([[True, True, False]]))
    end = mask_logits(torch.tensor([[0.0, 2.0, 9.0]]), torch.tensor([[True, True, False]]))
    # unmasked, (2, 2) would score 18; of the rest, (1, 1) scores 3, (0, 1) 2 and (0, 0) 0
    assert best_span(start, end, 0).tolist() == [[1, 1]]
    assert best_span(start, end, 2).tolist() == [[1, 1]]


def test_span_loss_is_the_mean_start_plus_end_cross_entropy():
    start = torch.tensor([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    end = torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 3.0]])
    span_start, span_end = torch.tensor([0, 2]), torch.tensor([[1], [2]])  # a B x 1 gold is flattened
    loss = span_loss(start, end, span_start, span_end)
    expected = sum(
        -torch.log_softmax(logits[row], -1)[gold]
        for logits, golds in ((start, [0, 2]), (end, [1, 2]))
        for row, gold in enumerate(golds)
    ) / 2
    assert loss.item() == pytest.approx(expected.item())
    confident = torch.full((1, 3), -50.0).index_fill(1, torch.tensor([1]), 50.0)
    assert span_loss(confident, confident, torch.tensor([1]), torch.tensor([1])).item() == pytest.approx(0.0, abs=1e-6)
    assert span_loss(confident, confident, torch.tensor([0]), torch.tensor([0])).item() > 100
