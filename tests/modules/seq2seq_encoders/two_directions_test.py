import pytest
import torch

from srcframework.modules.seq2seq_encoders.padded_bilstm import PaddedBiLstm
from srcframework.modules.seq2seq_encoders.two_directions import side_by_side
from tests.modules.gradients import outputs_and_gradients


@pytest.fixture
def two_threads():
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(threads)


def test_side_by_side_gives_the_sequential_outputs_and_gradients_bit_for_bit(two_threads):
    torch.manual_seed(0)
    encoder = PaddedBiLstm(12, 7, num_layers=2, dropout=0.0)
    x = torch.randn(5, 9, 12)
    mask = torch.arange(9).unsqueeze(0) < torch.tensor([9, 6, 3, 9, 1]).unsqueeze(1)
    grad = torch.randn(5, 9, 14)
    assert side_by_side()
    parallel = outputs_and_gradients(encoder, x, mask, grad)
    assert torch.get_num_threads() == 2  # the workers' one thread does not stay behind
    torch.set_num_threads(1)
    assert not side_by_side()
    sequential = outputs_and_gradients(encoder, x, mask, grad)
    for a, b in zip(parallel, sequential):
        assert torch.equal(a, b)


def test_without_gradients_and_with_a_frozen_input(two_threads):
    torch.manual_seed(1)
    encoder = PaddedBiLstm(4, 3)
    x = torch.randn(2, 5, 4)
    mask = torch.ones(2, 5, dtype=torch.bool)
    with torch.no_grad():
        no_grad = encoder(x, mask)
    out = encoder(x, mask)  # x needs no gradient: only the weights get one
    out.sum().backward()
    assert torch.equal(no_grad, out.detach())
    assert all(p.grad is not None for p in encoder.parameters())
    torch.set_num_threads(1)
    assert torch.equal(encoder(x, mask), out)
