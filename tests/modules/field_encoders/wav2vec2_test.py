import shutil

import pytest
import torch
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from safetensors.torch import load_file

from srcframework.modules.field_encoders.field_encoder import FieldEncoder
from srcframework.modules.field_encoders.wav2vec2 import Wav2Vec2AudioEncoder
from tests.tiny_models import audio_batch, tiny_checkpoint

LENGTHS = [80000, 50000, 20000, 3000]
FRAMES = [249, 156, 62, 9]  # the tiny stack's Conv1d lengths (see speecht5_test.expected_frames)


def saved_weights(folder: str, prefix: str = ""):
    state = load_file(f"{folder}/model.safetensors")
    return {k[len(prefix) :]: v for k, v in state.items() if k.startswith(prefix)}


def assert_weights_equal(model, saved):
    state = model.state_dict()
    assert set(state) <= set(saved)
    for key, value in state.items():
        assert torch.equal(value, saved[key]), key


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_checkpoint(tmp_path_factory, "wav2vec2")


@pytest.fixture(scope="module")
def encoder(model_dir):
    return Wav2Vec2AudioEncoder(model_dir, output_dim=12).eval()


def test_is_registered():
    assert FieldEncoder.by_name("wav2vec2") is Wav2Vec2AudioEncoder


def test_output_shape_and_mask_lengths(encoder):
    with torch.no_grad():
        encoded, mask = encoder(audio_batch(LENGTHS))
    assert encoded.shape == (4, 249, 12) and encoder.get_output_dim() == 12
    assert mask.sum(-1).tolist() == FRAMES
    assert all(mask[i, :n].all() and not mask[i, n:].any() for i, n in enumerate(FRAMES))
    assert torch.isfinite(encoded).all()


def test_one_utterance_matches_the_models_own_forward(encoder):
    batch = audio_batch([30000], seed=3)
    with torch.no_grad():
        ours = encoder.encode(batch)[0]
        reference = encoder.model(batch["waveform"]).last_hidden_state
    assert torch.allclose(ours, reference, atol=1e-5)


@pytest.mark.parametrize("norm", ["group", "layer"])
def test_padding_does_not_change_encodings(tmp_path_factory, norm):
    encoder = Wav2Vec2AudioEncoder(tiny_checkpoint(tmp_path_factory, "wav2vec2", norm), output_dim=12).eval()
    batch = audio_batch(LENGTHS, seed=1)
    with torch.no_grad():
        together, mask = encoder(batch)
        for row, length in enumerate(LENGTHS):
            alone, alone_mask = encoder({key: value[row : row + 1, :length] for key, value in batch.items()})
            frames = int(alone_mask.sum())
            assert frames == FRAMES[row] == int(mask[row].sum())
            assert torch.allclose(together[row, :frames], alone[0], atol=1e-5), (norm, row)


def test_utterance_shorter_than_a_frame_gets_one(encoder):
    with torch.no_grad():
        encoded, mask = encoder(audio_batch([16000, 100]))
    assert mask.sum(-1).tolist() == [49, 1] and torch.isfinite(encoded).all()


def test_empty_utterance_raises(encoder):
    batch = audio_batch([1000, 500])
    batch["mask"][1] = False
    with pytest.raises(ValueError, match=r"rows \[1\]"):
        encoder(batch)


@pytest.mark.parametrize("kind", ["wav2vec2", "wav2vec2_ctc"])
def test_loaded_weights_equal_the_saved_ones(tmp_path_factory, kind):
    folder = tiny_checkpoint(tmp_path_factory, kind)
    prefix = "wav2vec2." if kind == "wav2vec2_ctc" else ""
    assert_weights_equal(Wav2Vec2AudioEncoder(folder).model, saved_weights(folder, prefix))


def test_loads_old_weight_norm_names(tmp_path_factory, tmp_path):
    folder = tiny_checkpoint(tmp_path_factory, "wav2vec2_ctc")
    shutil.copy(f"{folder}/config.json", tmp_path)
    state = load_file(f"{folder}/model.safetensors")
    renamed = {
        k.replace("parametrizations.weight.original0", "weight_g").replace("parametrizations.weight.original1", "weight_v"): v
        for k, v in state.items()
    }
    torch.save(renamed, tmp_path / "pytorch_model.bin")
    assert_weights_equal(Wav2Vec2AudioEncoder(str(tmp_path)).model, saved_weights(folder, "wav2vec2."))


def test_missing_weights_raise(tmp_path_factory, tmp_path):
    folder = tiny_checkpoint(tmp_path_factory, "wav2vec2")
    shutil.copy(f"{folder}/config.json", tmp_path)
    state = load_file(f"{folder}/model.safetensors")
    del state["encoder.layers.1.attention.k_proj.weight"]
    torch.save(state, tmp_path / "pytorch_model.bin")
    with pytest.raises(ConfigurationError, match="k_proj.weight"):
        Wav2Vec2AudioEncoder(str(tmp_path))


def test_unusable_model_names_raise_clear_errors(tmp_path_factory):
    with pytest.raises(ConfigurationError, match="no/such/wav2vec2_dir"):
        Wav2Vec2AudioEncoder("/no/such/wav2vec2_dir")
    with pytest.raises(ConfigurationError, match="'speecht5' model"):
        Wav2Vec2AudioEncoder(tiny_checkpoint(tmp_path_factory, "speecht5"))


def test_freeze_trains_only_the_projection(model_dir):
    encoder = Wav2Vec2AudioEncoder(model_dir, output_dim=12, freeze=True).train()
    assert not any(p.requires_grad for p in encoder.model.parameters()) and not encoder.model.training
    encoded, mask = encoder(audio_batch([8000, 6000]))
    encoded[mask].pow(2).sum().backward()
    assert all(p.grad is None for p in encoder.model.parameters())
    assert encoder.projection.weight.grad.abs().sum() > 0


def test_feature_encoder_is_frozen_by_default(model_dir):
    encoder = Wav2Vec2AudioEncoder(model_dir, output_dim=12).train()
    encoded, mask = encoder(audio_batch([8000, 6000]))
    encoded[mask].sum().backward()
    assert all(p.grad is None for p in encoder.model.feature_extractor.parameters())
    projection = encoder.model.feature_projection.projection.weight
    assert projection.grad is not None and projection.grad.abs().sum() > 0
    unfrozen = Wav2Vec2AudioEncoder(model_dir, output_dim=12, freeze_feature_encoder=False).train()
    encoded, mask = unfrozen(audio_batch([8000, 6000]))
    encoded[mask].sum().backward()
    assert unfrozen.model.feature_extractor.conv_layers[0].conv.weight.grad.abs().sum() > 0


def test_num_layers(model_dir):
    encoder = Wav2Vec2AudioEncoder(model_dir, num_layers=1)
    assert len(encoder.model.encoder.layers) == 1 and encoder.get_output_dim() == 32
    with pytest.raises(ConfigurationError, match="between 1 and 2"):
        Wav2Vec2AudioEncoder(model_dir, num_layers=0)


def test_from_params(model_dir):
    params = Params({"type": "wav2vec2", "model_name": model_dir, "output_dim": 10, "dropout": 0.1})
    encoder = FieldEncoder.from_params(params)
    assert isinstance(encoder, Wav2Vec2AudioEncoder) and encoder.get_output_dim() == 10
