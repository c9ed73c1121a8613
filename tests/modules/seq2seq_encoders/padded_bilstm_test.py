import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from srcframework.modules.seq2seq_encoders.padded_bilstm import PaddedBiLstm, reverse_padded


def test_reverse_padded_keeps_padding_in_place():
    x = torch.arange(8.0).view(2, 4, 1)
    out = reverse_padded(x, torch.tensor([4, 2]))
    assert out.view(2, 4).tolist() == [[3, 2, 1, 0], [5, 4, 6, 7]]


def test_reverse_padded_is_a_gather_along_the_steps_bit_for_bit_both_ways():
    """Whole vectors are selected; the values and the gradient are those of `gather` on the steps."""
    torch.manual_seed(3)
    lengths = torch.tensor([9, 5, 1, 7])
    positions = torch.arange(9).unsqueeze(0).expand(4, -1)
    source = lengths.unsqueeze(1) - 1 - positions
    index = torch.where(source >= 0, source, positions).unsqueeze(-1).expand(4, 9, 6)
    # contiguous; time-major seen batch first (as the LSTM kernel's gradient); neither
    for x in (torch.randn(4, 9, 6), torch.randn(9, 4, 6).transpose(0, 1), torch.randn(4, 6, 9).transpose(1, 2)):
        x.requires_grad_(True)
        grad = torch.randn(4, 9, 6) if x.is_contiguous() else torch.randn(9, 4, 6).transpose(0, 1)
        ours = reverse_padded(x, lengths)
        (ours_grad,) = torch.autograd.grad(ours, x, grad)
        expected = x.gather(1, index)
        (expected_grad,) = torch.autograd.grad(expected, x, grad)
        assert torch.equal(ours, expected) and torch.equal(ours_grad, expected_grad)


def test_matches_packed_bidirectional_lstm():
    torch.manual_seed(0)
    encoder = PaddedBiLstm(6, 5, num_layers=2)
    reference = torch.nn.LSTM(6, 5, num_layers=2, batch_first=True, bidirectional=True)
    with torch.no_grad():
        for layer in range(2):
            for direction, lstm in (("", encoder.forward_layers[layer]), ("_reverse", encoder.backward_layers[layer])):
                for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                    getattr(reference, f"{name}_l{layer}{direction}").copy_(getattr(lstm, f"{name}_l0"))
    x = torch.randn(3, 7, 6)
    lengths = torch.tensor([7, 4, 1])
    mask = torch.arange(7).unsqueeze(0) < lengths.unsqueeze(1)
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    expected, _ = pad_packed_sequence(reference(packed)[0], batch_first=True, total_length=7)
    actual = encoder(x, mask)
    assert torch.allclose(actual, expected, atol=1e-6)
    assert encoder.get_output_dim() == 10 and encoder.is_bidirectional()
    assert actual[1, 4:].abs().sum() == 0


def test_padding_values_do_not_leak():
    torch.manual_seed(1)
    encoder = PaddedBiLstm(4, 3)
    x = torch.randn(2, 5, 4)
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], dtype=torch.bool)
    changed = x.clone()
    changed[0, 3:] = 100.0
    assert torch.allclose(encoder(x, mask), encoder(changed, mask))
