import shutil

import pytest
import torch
from allennlp.common.checks import ConfigurationError
from safetensors.torch import load_file

from srcframework.modules.field_encoders.wav2vec2 import Wav2Vec2AudioEncoder
from tests.modules.field_encoders.encoder_checks import AudioEncoderChecks, with_legacy_weight_norm_names
from tests.tiny_models import audio_batch, tiny_checkpoint


def saved_weights(folder: str, prefix: str = ""):
    state = load_file(f"{folder}/model.safetensors")
    return {k[len(prefix) :]: v for k, v in state.items() if k.startswith(prefix)}


def assert_weights_equal(model, saved):
    state = model.state_dict()
    assert set(state) <= set(saved)
    for key, value in state.items():
        assert torch.equal(value, saved[key]), key


class TestWav2Vec2AudioEncoder(AudioEncoderChecks):
    encoder_class = Wav2Vec2AudioEncoder
    name = kind = "wav2vec2"
    layers = "encoder.layers"

    @pytest.mark.parametrize("kind", ["wav2vec2", "wav2vec2_ctc"])
    def test_loaded_weights_equal_the_saved_ones(self, tmp_path_factory, kind):
        folder = tiny_checkpoint(tmp_path_factory, kind)
        prefix = "wav2vec2." if kind == "wav2vec2_ctc" else ""
        assert_weights_equal(Wav2Vec2AudioEncoder(folder).model, saved_weights(folder, prefix))

    def test_loads_old_weight_norm_names(self, tmp_path_factory, tmp_path):
        folder = tiny_checkpoint(tmp_path_factory, "wav2vec2_ctc")
        shutil.copy(f"{folder}/config.json", tmp_path)
        renamed = with_legacy_weight_norm_names(load_file(f"{folder}/model.safetensors"))
        torch.save(renamed, tmp_path / "pytorch_model.bin")
        assert_weights_equal(Wav2Vec2AudioEncoder(str(tmp_path)).model, saved_weights(folder, "wav2vec2."))

    def test_missing_weights_raise(self, model_dir, tmp_path):
        shutil.copy(f"{model_dir}/config.json", tmp_path)
        state = load_file(f"{model_dir}/model.safetensors")
        del state["encoder.layers.1.attention.k_proj.weight"]
        torch.save(state, tmp_path / "pytorch_model.bin")
        with pytest.raises(ConfigurationError, match="k_proj.weight"):
            Wav2Vec2AudioEncoder(str(tmp_path))

    def test_unusable_model_names_raise_clear_errors(self, tmp_path_factory):
        with pytest.raises(ConfigurationError, match="no/such/wav2vec2_dir"):
            Wav2Vec2AudioEncoder("/no/such/wav2vec2_dir")
        with pytest.raises(ConfigurationError, match="'speecht5' model"):
            Wav2Vec2AudioEncoder(tiny_checkpoint(tmp_path_factory, "speecht5"))

    def test_feature_encoder_is_frozen_by_default(self, model_dir):
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

    def test_num_layers_without_output_dim(self, model_dir):
        encoder = Wav2Vec2AudioEncoder(model_dir, num_layers=1)
        assert len(encoder.model.encoder.layers) == 1 and encoder.get_output_dim() == 32
