import pytest
import torch

from srcframework.common.conv_frames import convolve_batched, convolve_per_utterance, masked_group_norm, min_samples


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


def feature_encoder(norm: str, model: str = "speecht5") -> torch.nn.Module:
    """A tiny randomly initialised SpeechT5 or wav2vec 2.0 convolutional feature encoder (`norm`:
    group or layer)."""
    from transformers import SpeechT5Config, Wav2Vec2Config
    from transformers.models.speecht5.modeling_speecht5 import SpeechT5FeatureEncoder
    from transformers.models.wav2vec2.modeling_wav2vec2 import Wav2Vec2FeatureEncoder

    torch.manual_seed(0)
    config_class, encoder_class = {"speecht5": (SpeechT5Config, SpeechT5FeatureEncoder), "wav2vec2": (Wav2Vec2Config, Wav2Vec2FeatureEncoder)}[model]
    config = config_class(conv_dim=[8, 8, 8], conv_kernel=[10, 8, 4], conv_stride=[5, 4, 4], feat_extract_norm=norm)
    encoder = encoder_class(config)
    with torch.no_grad():  # affine norms away from their initial 1 and 0
        for name, parameter in encoder.named_parameters():
            if "layer_norm" in name:
                parameter.uniform_(0.5, 1.5)
    return encoder


@pytest.mark.parametrize("model", ["speecht5", "wav2vec2"])
@pytest.mark.parametrize("norm", ["group", "layer"])
def test_batched_convolutions_give_each_utterance_what_it_gives_alone(norm, model):
    encoder = feature_encoder(norm, model).train()
    shortest = min_samples([10, 8, 4], [5, 4, 4])
    lengths = torch.tensor([1000, 640, shortest - 30, 997, 1000])
    waveform = torch.randn(5, 1000) * 3.0 + 1.0  # whatever lies past a row's length must not count
    weights = torch.randn(5, 12, 8)  # a fixed random loss over every output frame

    def run(convolve):
        encoder.zero_grad()
        out = convolve(encoder, waveform, lengths, shortest)
        (out * weights[:, : out.size(1)]).sum().backward()
        return out.detach(), {name: p.grad.clone() for name, p in encoder.named_parameters()}

    alone, alone_grads = run(lambda e, w, l, s: convolve_per_utterance(e, torch.stack([
        torch.nn.functional.pad(row[:n], (0, w.size(1) - n)) for row, n in zip(w, l.tolist())]), l, s))
    batched, batched_grads = run(convolve_batched)
    assert batched.shape == alone.shape == (5, 12, 8)
    assert torch.allclose(batched, alone, atol=1e-5)
    for name, grad in alone_grads.items():
        assert torch.allclose(batched_grads[name], grad, atol=1e-4, rtol=1e-4), name
    frames = [int(n) for n in (batched.abs().sum(-1) > 0).sum(-1)]
    assert frames == [12, 7, 1, 12, 12]  # zero past each utterance's frames


@pytest.mark.parametrize("groups", [6, 3])
def test_masked_group_norm_is_group_norm_over_each_rows_own_steps(groups):
    torch.manual_seed(0)
    norm = torch.nn.GroupNorm(groups, 6).double()
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.uniform_(-1.0, 1.0)
    hidden = (torch.randn(3, 6, 11, dtype=torch.float64) * 2 + 1).requires_grad_()
    lengths = torch.tensor([11, 6, 2])
    out = masked_group_norm(hidden, lengths, norm)
    for row, n in enumerate(lengths.tolist()):
        assert torch.allclose(out[row, :, :n], norm(hidden[row : row + 1, :, :n])[0])
        assert (out[row, :, n:] == 0).all()
    assert torch.autograd.gradcheck(lambda h, w, b: masked_group_norm(h, lengths, norm), (hidden, norm.weight, norm.bias))


@pytest.mark.parametrize("groups", [6, 3])
def test_masked_group_norm_under_bf16_autocast_normalises_in_float32(groups):
    torch.manual_seed(0)
    norm = torch.nn.GroupNorm(groups, 6)
    conv = torch.nn.Conv1d(1, 6, 5, stride=2)
    waveform = torch.randn(3, 1, 41)
    lengths = torch.tensor([19, 12, 5])
    expected = masked_group_norm(conv(waveform), lengths, norm)
    expected.sum().backward()
    grads = [p.grad.clone() for p in (*conv.parameters(), *norm.parameters())]
    conv.zero_grad()
    norm.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        hidden = conv(waveform)
        assert hidden.dtype == torch.bfloat16
        out = masked_group_norm(hidden, lengths, norm)
    assert out.dtype == torch.bfloat16
    out.float().sum().backward()  # a float32 grad meets the bfloat16 output: no dtype clash in backward
    assert torch.allclose(out.float(), expected, atol=0.1)
    for row, n in enumerate(lengths.tolist()):
        assert (out[row, :, n:] == 0).all()
    for grad, parameter in zip(grads, (*conv.parameters(), *norm.parameters())):
        assert parameter.grad is not None and parameter.grad.dtype == torch.float32
        assert torch.allclose(parameter.grad, grad, atol=0.5, rtol=0.1)
