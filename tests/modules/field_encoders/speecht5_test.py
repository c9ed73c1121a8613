import shutil

import pytest
import torch
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.models import Model
from safetensors.torch import load_file

from srcframework.models.span_qa import SpanQA
from srcframework.modules.field_encoders.field_encoder import FieldEncoder
from srcframework.modules.field_encoders.speecht5 import SpeechT5AudioEncoder
from tests.tiny_models import CONV, audio_batch, context_batch, span_qa_params, tiny_checkpoint

LENGTHS = [80000, 50000, 20000, 3000]  # 5 s, 3.1 s, 1.25 s, 0.19 s


def expected_frames(samples: int) -> int:
    """Frames out of the tiny convolution stack, by the Conv1d length formula."""
    for kernel, stride in zip(CONV["conv_kernel"], CONV["conv_stride"]):
        samples = (samples - kernel) // stride + 1
    return samples


@pytest.fixture(scope="module")
def asr_dir(tmp_path_factory):
    return tiny_checkpoint(tmp_path_factory, "speecht5")


@pytest.fixture(scope="module")
def saved(asr_dir):
    """The encoder tensors of the tiny speecht5_asr-style checkpoint, by encoder key."""
    prefix = "speecht5.encoder."
    return {k[len(prefix) :]: v for k, v in load_file(f"{asr_dir}/model.safetensors").items() if k.startswith(prefix)}


@pytest.fixture(scope="module")
def encoder(asr_dir):
    return SpeechT5AudioEncoder(asr_dir, output_dim=12).eval()


def assert_weights_equal(model, saved):
    state = model.state_dict()
    assert set(saved) <= set(state)
    for key, value in saved.items():
        assert torch.equal(state[key], value), key


def test_is_registered():
    assert FieldEncoder.by_name("speecht5") is SpeechT5AudioEncoder


def test_output_shape_and_mask_lengths(encoder):
    with torch.no_grad():
        encoded, mask = encoder(audio_batch(LENGTHS))
    frames = [expected_frames(n) for n in LENGTHS]
    assert frames == [249, 156, 62, 9]
    assert encoded.shape == (4, 249, 12) and encoder.get_output_dim() == 12
    assert mask.dtype == torch.bool and mask.sum(-1).tolist() == frames
    assert all(mask[i, :n].all() and not mask[i, n:].any() for i, n in enumerate(frames))
    assert torch.isfinite(encoded).all()


def test_without_output_dim_gives_the_hidden_size(asr_dir):
    encoder = SpeechT5AudioEncoder(asr_dir).eval()
    assert encoder.projection is None and encoder.get_output_dim() == 32
    assert encoder(audio_batch([16000]))[0].shape == (1, 49, 32)


def test_one_utterance_matches_the_models_own_forward(encoder):
    batch = audio_batch([30000], seed=3)
    with torch.no_grad():
        ours = encoder.encode(batch)[0]
        reference = encoder.model(batch["waveform"]).last_hidden_state
    assert torch.allclose(ours, reference, atol=1e-5)


@pytest.mark.parametrize("norm", ["group", "layer"])
def test_padding_does_not_change_encodings(tmp_path_factory, norm):
    encoder = SpeechT5AudioEncoder(tiny_checkpoint(tmp_path_factory, "speecht5", norm), output_dim=12).eval()
    batch = audio_batch(LENGTHS, seed=1)
    with torch.no_grad():
        together, mask = encoder(batch)
        for row in range(len(LENGTHS)):
            alone, alone_mask = encoder(row_of(batch, row))
            frames = int(alone_mask.sum())
            assert frames == int(mask[row].sum())
            assert torch.allclose(together[row, :frames], alone[0], atol=1e-5), (norm, row)


def row_of(batch, row):
    length = int(batch["mask"][row].sum())
    return {key: value[row : row + 1, :length] for key, value in batch.items()}


def test_models_batched_prenet_is_not_padding_invariant(encoder):
    """Why the encoder runs the prenet's parts itself: the model's own batched forward lets the
    padding into the real frames (group norm statistics, positional convolution)."""
    batch = audio_batch(LENGTHS[:2], seed=2)
    with torch.no_grad():
        batched = encoder.model(batch["waveform"], attention_mask=batch["mask"].long()).last_hidden_state
        alone = encoder.model(row_of(batch, 1)["waveform"]).last_hidden_state
    assert not torch.allclose(batched[1, : alone.size(1)], alone[0], atol=1e-3)


def test_utterance_shorter_than_a_frame_gets_one(encoder):
    with torch.no_grad():
        encoded, mask = encoder(audio_batch([16000, 100]))
    assert mask.sum(-1).tolist() == [49, 1] and torch.isfinite(encoded).all()


def test_bad_batches_raise_clear_errors(encoder):
    batch = audio_batch([1000, 500])
    with pytest.raises(ValueError, match="hold no samples"):
        encoder({"waveform": batch["waveform"], "mask": torch.zeros_like(batch["mask"])})
    holey = batch["mask"].clone()
    holey[0, 10] = False
    with pytest.raises(ValueError, match="first samples"):
        encoder({"waveform": batch["waveform"], "mask": holey})
    with pytest.raises(ValueError, match="AudioField"):
        encoder({"tokens": batch["waveform"]})
    with pytest.raises(ValueError, match="B x T"):
        encoder({"waveform": batch["waveform"][0], "mask": batch["mask"][0]})


def test_loaded_weights_equal_the_saved_ones(encoder, saved):
    assert_weights_equal(encoder.model, saved)


def test_plain_from_pretrained_would_keep_random_weights(asr_dir, saved):
    """The pitfall the loader avoids: transformers does not map speecht5.encoder.* keys."""
    from transformers.models.speecht5.modeling_speecht5 import SpeechT5EncoderWithSpeechPrenet

    naive = SpeechT5EncoderWithSpeechPrenet.from_pretrained(asr_dir)
    key = "prenet.feature_encoder.conv_layers.0.conv.weight"
    assert not torch.equal(naive.state_dict()[key], saved[key])


@pytest.mark.parametrize("layout", ["SpeechT5Model", "encoder_only", "sharded", "legacy_weight_norm_bin"])
def test_loads_every_checkpoint_layout(asr_dir, saved, tmp_path, layout):
    from transformers import SpeechT5ForSpeechToText

    full = SpeechT5ForSpeechToText.from_pretrained(asr_dir)
    if layout == "SpeechT5Model":  # keys encoder.prenet..., decoder...
        full.speecht5.save_pretrained(tmp_path)
    elif layout == "encoder_only":  # keys prenet..., wrapped_encoder...
        full.speecht5.encoder.save_pretrained(tmp_path)
    elif layout == "sharded":
        full.save_pretrained(tmp_path, max_shard_size="200KB")
        assert (tmp_path / "model.safetensors.index.json").exists()
    else:  # pytorch_model.bin with the old weight_g / weight_v names, as on the hub
        shutil.copy(f"{asr_dir}/config.json", tmp_path)
        state = load_file(f"{asr_dir}/model.safetensors")
        renamed = {
            k.replace("parametrizations.weight.original0", "weight_g").replace("parametrizations.weight.original1", "weight_v"): v
            for k, v in state.items()
        }
        assert any(k.endswith("weight_g") for k in renamed)
        torch.save(renamed, tmp_path / "pytorch_model.bin")
    assert_weights_equal(SpeechT5AudioEncoder(str(tmp_path)).model, saved)


def test_unusable_model_names_raise_clear_errors(tmp_path_factory, tmp_path):
    with pytest.raises(ConfigurationError, match="no/such/speecht5_dir"):
        SpeechT5AudioEncoder("/no/such/speecht5_dir")
    with pytest.raises(ConfigurationError, match="'wav2vec2' model"):
        SpeechT5AudioEncoder(tiny_checkpoint(tmp_path_factory, "wav2vec2"))
    with pytest.raises(ConfigurationError, match="no SpeechT5 encoder with a 'feature_encoder' prenet"):
        SpeechT5AudioEncoder(tiny_checkpoint(tmp_path_factory, "speecht5_tts"))
    shutil.copy(f"{tiny_checkpoint(tmp_path_factory, 'speecht5')}/config.json", tmp_path)
    with pytest.raises(ConfigurationError, match="holds no weights"):
        SpeechT5AudioEncoder(str(tmp_path))


def test_freeze_trains_only_the_projection(asr_dir):
    encoder = SpeechT5AudioEncoder(asr_dir, output_dim=12, freeze=True, dropout=0.1).train()
    assert not any(p.requires_grad for p in encoder.model.parameters())
    assert not encoder.model.training and encoder.dropout.training
    encoded, mask = encoder(audio_batch([8000, 6000]))
    encoded[mask].pow(2).sum().backward()
    assert all(p.grad is None for p in encoder.model.parameters())
    assert encoder.projection.weight.grad is not None and encoder.projection.weight.grad.abs().sum() > 0


def test_fine_tuning_reaches_the_pretrained_weights(asr_dir):
    encoder = SpeechT5AudioEncoder(asr_dir, output_dim=12, freeze_feature_encoder=True).train()
    encoded, mask = encoder(audio_batch([8000, 6000]))
    encoded[mask].sum().backward()
    conv = encoder.model.prenet.feature_encoder.parameters()
    assert all(p.grad is None and not p.requires_grad for p in conv)
    layer_norm = encoder.model.wrapped_encoder.layer_norm.weight
    assert layer_norm.grad is not None and layer_norm.grad.abs().sum() > 0


def test_num_layers_keeps_the_first_layers(asr_dir, encoder):
    shallow = SpeechT5AudioEncoder(asr_dir, output_dim=12, num_layers=1).eval()
    assert len(shallow.model.wrapped_encoder.layers) == 1
    shallow.projection.load_state_dict(encoder.projection.state_dict())
    batch = audio_batch([8000])
    with torch.no_grad():
        assert not torch.allclose(shallow(batch)[0], encoder(batch)[0])
    with pytest.raises(ConfigurationError, match="between 1 and 2"):
        SpeechT5AudioEncoder(asr_dir, num_layers=3)


def test_from_params(asr_dir):
    encoder = FieldEncoder.from_params(Params({"type": "speecht5", "model_name": asr_dir, "output_dim": 10, "freeze": True}))
    assert isinstance(encoder, SpeechT5AudioEncoder) and encoder.get_output_dim() == 10 and encoder.freeze


CONTEXTS = ["the harbour was built in 1850 by the river", "what river flows by the harbour"]


def test_span_qa_with_a_speecht5_question_trains(asr_dir):
    """span_qa = `text` context encoder (GloVe + char CNN + BiLSTM, as in bidaf_tiny.jsonnet) +
    `speecht5` question encoder + `bi_attention` head: forward and backward on a hand-made batch."""
    vocab, context = context_batch(CONTEXTS)
    question_encoder = {"type": "speecht5", "model_name": asr_dir, "output_dim": 10, "freeze": True}
    model = Model.from_params(vocab=vocab, params=Params(span_qa_params(question_encoder)))
    assert isinstance(model, SpanQA) and isinstance(model.question_encoder, SpeechT5AudioEncoder)
    model.train()
    question = audio_batch([24000, 16000], seed=4)
    output = model(context=context, question=question, span_start=torch.tensor([[6], [1]]), span_end=torch.tensor([[6], [1]]))
    assert torch.isfinite(output["loss"])
    output["loss"].backward()
    projection = model.question_encoder.projection.weight
    assert projection.grad is not None and projection.grad.abs().sum() > 0
    assert all(p.grad is None for p in model.question_encoder.model.parameters())
    model.eval()
    with torch.no_grad():
        spans = model(context=context, question=question)["best_span"]
    assert spans.shape == (2, 2) and (spans[:, 0] <= spans[:, 1]).all()
