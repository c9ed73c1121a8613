import shutil

import pytest
import torch
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.models import Model
from safetensors.torch import load_file

from srcframework.models.span_qa import SpanQA
from srcframework.modules.field_encoders.speecht5 import SpeechT5AudioEncoder
from tests.modules.field_encoders.encoder_checks import (
    LENGTHS,
    AudioEncoderChecks,
    row_of,
    with_legacy_weight_norm_names,
)
from tests.tiny_models import audio_batch, context_batch, span_qa_params, tiny_checkpoint

CONTEXTS = ["the harbour was built in 1850 by the river", "what river flows by the harbour"]


def assert_weights_equal(model, saved):
    state = model.state_dict()
    assert set(saved) <= set(state)
    for key, value in saved.items():
        assert torch.equal(state[key], value), key


class TestSpeechT5AudioEncoder(AudioEncoderChecks):
    """On a tiny speecht5_asr-style checkpoint (SpeechT5ForSpeechToText)."""

    encoder_class = SpeechT5AudioEncoder
    name = kind = "speecht5"
    layers = "wrapped_encoder.layers"

    @pytest.fixture(scope="class")
    @classmethod
    def saved(cls, model_dir):
        """The encoder tensors of the tiny speecht5_asr-style checkpoint, by encoder key."""
        prefix = "speecht5.encoder."
        state = load_file(f"{model_dir}/model.safetensors")
        return {k[len(prefix) :]: v for k, v in state.items() if k.startswith(prefix)}

    def test_models_batched_prenet_is_not_padding_invariant(self, encoder):
        """Why the encoder runs the prenet's parts itself: the model's own batched forward lets the
        padding into the real frames (group norm statistics, positional convolution)."""
        batch = audio_batch(LENGTHS[:2], seed=2)
        with torch.no_grad():
            batched = encoder.model(batch["waveform"], attention_mask=batch["mask"].long()).last_hidden_state
            alone = encoder.model(row_of(batch, 1)["waveform"]).last_hidden_state
        assert not torch.allclose(batched[1, : alone.size(1)], alone[0], atol=1e-3)

    def test_loaded_weights_equal_the_saved_ones(self, encoder, saved):
        assert_weights_equal(encoder.model, saved)

    def test_plain_from_pretrained_would_keep_random_weights(self, model_dir, saved):
        """The pitfall the loader avoids: transformers does not map speecht5.encoder.* keys."""
        from transformers.models.speecht5.modeling_speecht5 import SpeechT5EncoderWithSpeechPrenet

        naive = SpeechT5EncoderWithSpeechPrenet.from_pretrained(model_dir)
        key = "prenet.feature_encoder.conv_layers.0.conv.weight"
        assert not torch.equal(naive.state_dict()[key], saved[key])

    @pytest.mark.parametrize("layout", ["SpeechT5Model", "encoder_only", "sharded", "legacy_weight_norm_bin"])
    def test_loads_every_checkpoint_layout(self, model_dir, saved, tmp_path, layout):
        from transformers import SpeechT5ForSpeechToText

        full = SpeechT5ForSpeechToText.from_pretrained(model_dir)
        if layout == "SpeechT5Model":  # keys encoder.prenet..., decoder...
            full.speecht5.save_pretrained(tmp_path)
        elif layout == "encoder_only":  # keys prenet..., wrapped_encoder...
            full.speecht5.encoder.save_pretrained(tmp_path)
        elif layout == "sharded":
            full.save_pretrained(tmp_path, max_shard_size="200KB")
            assert (tmp_path / "model.safetensors.index.json").exists()
        else:  # pytorch_model.bin with the old weight_g / weight_v names, as on the hub
            shutil.copy(f"{model_dir}/config.json", tmp_path)
            renamed = with_legacy_weight_norm_names(load_file(f"{model_dir}/model.safetensors"))
            assert any(k.endswith("weight_g") for k in renamed)
            torch.save(renamed, tmp_path / "pytorch_model.bin")
        assert_weights_equal(SpeechT5AudioEncoder(str(tmp_path)).model, saved)

    def test_unusable_model_names_raise_clear_errors(self, tmp_path_factory, tmp_path):
        with pytest.raises(ConfigurationError, match="no/such/speecht5_dir"):
            SpeechT5AudioEncoder("/no/such/speecht5_dir")
        with pytest.raises(ConfigurationError, match="'wav2vec2' model"):
            SpeechT5AudioEncoder(tiny_checkpoint(tmp_path_factory, "wav2vec2"))
        with pytest.raises(ConfigurationError, match="no SpeechT5 encoder with a 'feature_encoder' prenet"):
            SpeechT5AudioEncoder(tiny_checkpoint(tmp_path_factory, "speecht5_tts"))
        shutil.copy(f"{tiny_checkpoint(tmp_path_factory, 'speecht5')}/config.json", tmp_path)
        with pytest.raises(ConfigurationError, match="holds no weights"):
            SpeechT5AudioEncoder(str(tmp_path))

    def test_fine_tuning_reaches_the_pretrained_weights(self, model_dir):
        encoder = SpeechT5AudioEncoder(model_dir, output_dim=12, freeze_feature_encoder=True).train()
        encoded, mask = encoder(audio_batch([8000, 6000]))
        encoded[mask].sum().backward()
        conv = encoder.model.prenet.feature_encoder.parameters()
        assert all(p.grad is None and not p.requires_grad for p in conv)
        layer_norm = encoder.model.wrapped_encoder.layer_norm.weight
        assert layer_norm.grad is not None and layer_norm.grad.abs().sum() > 0

    def test_span_qa_with_a_speecht5_question_trains(self, model_dir):
        """span_qa = `text` context encoder (GloVe + char CNN + BiLSTM, as in bidaf_tiny.jsonnet) +
        `speecht5` question encoder + `bi_attention` head: forward and backward on a hand-made batch."""
        vocab, context = context_batch(CONTEXTS)
        question_encoder = {"type": "speecht5", "model_name": model_dir, "output_dim": 10, "freeze": True}
        model = Model.from_params(vocab=vocab, params=Params(span_qa_params(question_encoder)))
        assert isinstance(model, SpanQA) and isinstance(model.question_encoder, SpeechT5AudioEncoder)
        model.train()
        question = audio_batch([24000, 16000], seed=4)
        span = {"span_start": torch.tensor([[6], [1]]), "span_end": torch.tensor([[6], [1]])}
        output = model(context=context, question=question, **span)
        assert torch.isfinite(output["loss"])
        output["loss"].backward()
        projection = model.question_encoder.projection.weight
        assert projection.grad is not None and projection.grad.abs().sum() > 0
        assert all(p.grad is None for p in model.question_encoder.model.parameters())
        model.eval()
        with torch.no_grad():
            spans = model(context=context, question=question)["best_span"]
        assert spans.shape == (2, 2) and (spans[:, 0] <= spans[:, 1]).all()
