import pytest
import torch

from srcframework.common.conv_frames import convolve_per_utterance, min_samples


def test_min_samples_is_the_receptive_field_of_the_stack():
    assert min_samples([10, 5], [4, 4]) == 26
    conv = torch.nn.Sequential(torch.nn.Conv1d(1, 1, 10, 4), torch.nn.Conv1d(1, 1, 5, 4))
    assert conv(torch.zeros(1, 1, 26)).shape[-1] == 1
    with pytest.raises(RuntimeError):  # one sample fewer gives no frame
        conv(torch.zeros(1, 1, 25))


class Features(torch.nn.Module):
    """A feature encoder whose frames are each sample's value and the mean of its utterance (a
    stand-in for the group normalisation that would mix padding into every frame)."""

    def forward(self, samples):  # 1 x T -> 1 x 2 x T
        return torch.stack([samples, samples.mean(-1, keepdim=True).expand_as(samples)], dim=1)


def test_each_utterance_is_convolved_alone_and_short_ones_padded():
    waveform = torch.tensor([[1.0, 3.0, 0.0, 0.0], [2.0, 2.0, 2.0, 2.0]])
    out = convolve_per_utterance(Features(), waveform, torch.tensor([2, 4]), shortest=3)
    assert out.shape == (2, 4, 2)
    # row 0: its two samples padded with one zero up to 3, mean over those 3 only, then zero rows
    assert torch.allclose(out[0, :, 0], torch.tensor([1.0, 3.0, 0.0, 0.0]))
    assert torch.allclose(out[0, :3, 1], torch.full((3,), 4.0 / 3)) and out[0, 3, 1] == 0
    assert torch.allclose(out[1, :, 1], torch.full((4,), 2.0))
