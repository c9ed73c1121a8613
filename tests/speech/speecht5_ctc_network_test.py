"""The CTC SpeechT5 network encodes an utterance the same alone and in any batch, with its
convolutions run on the whole batch, and trains through them."""
import torch

from srcframework.common.conv_frames import convolve_per_utterance
from srcframework.speech.speecht5_ctc_network import SpeechT5CtcNetwork, pad_rows
from tests.tiny_models import TINY_CTC_ENCODER


def tiny_network() -> SpeechT5CtcNetwork:
    torch.manual_seed(0)
    return SpeechT5CtcNetwork.from_config(dict(TINY_CTC_ENCODER))


def test_an_utterance_encodes_the_same_alone_and_in_a_batch():
    network = tiny_network().eval()
    torch.manual_seed(1)
    rows = [torch.randn(n) for n in (4000, 2500, 300, 3999)]  # 300 samples: shorter than one frame's receptive field
    waveform, lengths = pad_rows(rows)
    with torch.no_grad():
        logits, mask = network(waveform, lengths)
        assert mask.sum(-1).tolist() == network.frames(lengths).tolist()
        for i, row in enumerate(rows):
            alone, alone_mask = network(row.unsqueeze(0), torch.tensor([row.numel()]))
            frames = int(alone_mask.sum())
            assert torch.allclose(logits[i, :frames], alone[0, :frames], atol=1e-4)
        per_utterance = convolve_per_utterance(network.encoder.prenet.feature_encoder, waveform, lengths, network.min_samples)
        assert torch.allclose(network.features(waveform, lengths), per_utterance, atol=1e-5)


def test_trains_through_the_batched_convolutions():
    network = tiny_network().train()
    waveform, lengths = pad_rows([torch.randn(n) for n in (4000, 2500, 3000)])
    logits, mask = network(waveform, lengths)
    targets, target_lengths = network.targets(["what is it", "who", "where to"])
    log_probs = torch.log_softmax(logits, dim=-1).transpose(0, 1)
    loss = torch.nn.functional.ctc_loss(log_probs, targets, mask.sum(-1), target_lengths, zero_infinity=True)
    loss.backward()
    assert torch.isfinite(loss)
    convolutions = network.encoder.prenet.feature_encoder
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in convolutions.parameters())
    assert waveform.grad is None
