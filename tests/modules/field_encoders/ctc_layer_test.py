import json

import pytest
import torch
from allennlp.common.checks import ConfigurationError
from safetensors.torch import load_file

from srcframework.modules.field_encoders.ctc_layer import ctc_layer, ctc_loss
from srcframework.modules.field_encoders.speecht5 import SpeechT5AudioEncoder
from srcframework.speech.speecht5_ctc_network import CHARACTERS, character_ids
from tests.tiny_models import audio_batch, save_tiny_ctc_recognizer, tiny_checkpoint


@pytest.fixture(scope="module")
def recognizer(tmp_path_factory):
    """A tiny speecht5_ctc folder, as `save_speecht5_ctc` writes one (encoder, CTC layer, characters)."""
    return save_tiny_ctc_recognizer(tmp_path_factory.mktemp("recognizer"))


def padded(texts):
    rows = [torch.tensor(character_ids(text)) for text in texts]
    return torch.nn.utils.rnn.pad_sequence(rows, batch_first=True, padding_value=-1)


def test_the_layer_of_a_recognizers_folder_is_its_own(recognizer):
    layer = ctc_layer(recognizer, 32)
    saved = load_file(f"{recognizer}/ctc_head.safetensors")
    assert torch.equal(layer.weight, saved["weight"]) and torch.equal(layer.bias, saved["bias"])
    assert layer.out_features == len(CHARACTERS)
    # from a config alone (an archive's encoder), the archive's weights replace a fresh layer
    assert not torch.equal(ctc_layer(recognizer, 32, load_weights=False).weight, saved["weight"])


def test_a_folder_without_a_ctc_layer_gives_a_fresh_one(tmp_path_factory, caplog):
    asr = tiny_checkpoint(tmp_path_factory, "speecht5")
    with caplog.at_level("INFO"):
        layer = ctc_layer(asr, 32)
    assert layer.weight.shape == (len(CHARACTERS), 32)
    assert "holds no CTC layer" in caplog.text


def test_a_layer_of_other_characters_or_width_is_a_clear_error(recognizer, tmp_path):
    import shutil

    with pytest.raises(ConfigurationError, match="does not fit an encoder of width 48"):
        ctc_layer(recognizer, 48)
    other = shutil.copytree(recognizer, tmp_path / "other")
    (other / "ctc_vocabulary.json").write_text(json.dumps({"characters": CHARACTERS[:-1]}))
    with pytest.raises(ConfigurationError, match="over other characters"):
        ctc_layer(str(other), 32)


def test_ctc_loss_is_torchs_mean_over_padded_targets():
    torch.manual_seed(0)
    logits = torch.randn(2, 30, len(CHARACTERS))
    mask = torch.ones(2, 30, dtype=torch.bool)
    mask[1, 25:] = False
    texts = ["what is it", "who"]
    flat = torch.tensor(character_ids(texts[0]) + character_ids(texts[1]))
    expected = torch.nn.functional.ctc_loss(
        logits.log_softmax(-1).transpose(0, 1), flat, torch.tensor([30, 25]), torch.tensor([10, 3]), blank=0
    )
    assert torch.allclose(ctc_loss(logits, mask, padded(texts)), expected)


def test_bad_targets_are_clear_errors():
    logits, mask = torch.randn(2, 10, len(CHARACTERS)), torch.ones(2, 10, dtype=torch.bool)
    with pytest.raises(ValueError, match=r"B x S with B = 2 \(the batch\), got \(3, 4\)"):
        ctc_loss(logits, mask, torch.ones(3, 4, dtype=torch.long))
    with pytest.raises(ValueError, match="character ids from 1 to 38"):
        ctc_loss(logits, mask, torch.tensor([[1, 0], [2, 3]]))
    with pytest.raises(ValueError, match="character ids from 1 to 38"):
        ctc_loss(logits, mask, torch.tensor([[1, 39], [2, 3]]))


def test_the_speecht5_encoder_carries_the_recognizers_layer_and_its_loss(recognizer):
    encoder = SpeechT5AudioEncoder(recognizer, output_dim=10, ctc_weight=0.3).eval()
    assert encoder.auxiliary_loss_name == "ctc_loss" and encoder.auxiliary_loss_weight == 0.3
    assert torch.equal(encoder.ctc_layer.weight, load_file(f"{recognizer}/ctc_head.safetensors")["weight"])
    question = audio_batch([24000, 16000], seed=4)
    targets = padded(["what is it", "who"])
    with torch.no_grad():
        encoded, mask, loss = encoder.forward_with_auxiliary_loss(question, targets)
        plain, plain_mask = encoder(question)
        hidden, _ = encoder.encode(question)
    assert torch.equal(encoded, plain) and torch.equal(mask, plain_mask)
    log_probs = encoder.ctc_layer(hidden).log_softmax(-1).transpose(0, 1)
    flat = targets[targets >= 0]
    expected = torch.nn.functional.ctc_loss(log_probs, flat, mask.sum(-1), (targets >= 0).sum(-1), blank=0)
    assert torch.isfinite(expected) and torch.allclose(loss, expected)


def test_without_a_weight_the_encoder_has_no_ctc_layer(recognizer):
    encoder = SpeechT5AudioEncoder(recognizer, output_dim=10)
    assert encoder.auxiliary_loss_name is None and not hasattr(encoder, "ctc_layer")
    assert not any("ctc" in name for name in encoder.state_dict())
    with pytest.raises(ValueError, match="SpeechT5AudioEncoder has no auxiliary loss, so it takes no targets"):
        encoder.forward_with_auxiliary_loss(audio_batch([8000]), padded(["who"]))


@pytest.mark.parametrize(
    "options, message",
    [
        ({"ctc_weight": -0.1}, "ctc_weight must be a number of at least 0, got -0.1"),
        ({"ctc_weight": float("inf")}, "ctc_weight must be a number of at least 0, got inf"),
        ({"ctc_weight": "0.3"}, "ctc_weight must be a number of at least 0, got '0.3'"),
        ({"ctc_weight": 0.3, "freeze": True}, "needs freeze: false"),
    ],
)
def test_bad_ctc_settings_are_one_line_errors(recognizer, options, message):
    with pytest.raises(ConfigurationError, match=message) as error:
        SpeechT5AudioEncoder(recognizer, output_dim=10, **options)
    assert "\n" not in str(error.value)
