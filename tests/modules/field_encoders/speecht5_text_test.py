import logging

import pytest
import torch
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.data import Batch, Instance, Vocabulary
from allennlp.data.fields import TextField
from allennlp.models import Model
from safetensors.torch import load_file

from srcframework.data.token_indexers.speecht5 import SpeechT5TokenIndexer
from srcframework.data.tokenizers.blank_spacy import BlankSpacyTokenizer
from srcframework.modules.field_encoders.field_encoder import FieldEncoder
from srcframework.modules.field_encoders.speecht5_text import SpeechT5TextEncoder
from tests.tiny_models import context_batch, span_qa_params, tiny_checkpoint

QUESTIONS = ["What is the capital of France?", "Who wrote it?", "When did the X-ray machine become available?"]


def question_tensors(model_dir, questions=QUESTIONS):
    tokenizer = BlankSpacyTokenizer()
    indexer = SpeechT5TokenIndexer(model_dir)
    batch = Batch([Instance({"question": TextField(tokenizer.tokenize(q), {"tokens": indexer})}) for q in questions])
    batch.index_instances(Vocabulary())
    return batch.as_tensor_dict()["question"]


def saved_encoder(folder):
    state = load_file(f"{folder}/model.safetensors")
    return state, {k[len("speecht5.encoder.") :]: v for k, v in state.items() if k.startswith("speecht5.encoder.")}


@pytest.fixture(scope="module")
def tts_dir(tmp_path_factory):
    return tiny_checkpoint(tmp_path_factory, "speecht5_tts")


@pytest.fixture(scope="module")
def asr_dir(tmp_path_factory):
    return tiny_checkpoint(tmp_path_factory, "speecht5")


@pytest.fixture(scope="module")
def encoder(tts_dir):
    return SpeechT5TextEncoder(tts_dir, output_dim=12).eval()


def test_is_registered():
    assert FieldEncoder.by_name("speecht5_text") is SpeechT5TextEncoder


def test_output_shape_and_mask(encoder, tts_dir):
    tensors = question_tensors(tts_dir)
    with torch.no_grad():
        encoded, mask = encoder(tensors)
    characters = [len(q) + 2 for q in QUESTIONS]  # "▁" + the characters + "</s>"
    assert mask.sum(-1).tolist() == characters
    assert encoded.shape == (3, max(characters), 12) and encoder.get_output_dim() == 12
    assert torch.isfinite(encoded).all()


def test_padding_does_not_change_encodings(encoder, tts_dir):
    with torch.no_grad():
        together, mask = encoder(question_tensors(tts_dir))
        for row, question in enumerate(QUESTIONS):
            alone, alone_mask = encoder(question_tensors(tts_dir, [question]))
            length = int(alone_mask.sum())
            assert torch.allclose(together[row, :length], alone[0], atol=1e-5)


def test_text_to_speech_checkpoint_loads_whole(encoder, tts_dir):
    _, saved = saved_encoder(tts_dir)
    state = encoder.model.state_dict()
    assert {k for k in saved} <= set(state)
    assert all(torch.equal(state[k], v) for k, v in saved.items())
    assert encoder.model.prenet.encode_positions.alpha.item() != 1.0  # the saved (jittered) value


def test_speech_to_text_checkpoint_lends_its_decoder_embeddings(asr_dir, caplog):
    with caplog.at_level(logging.WARNING):
        encoder = SpeechT5TextEncoder(asr_dir)
    assert "speecht5.decoder.prenet.embed_tokens.weight" in caplog.text
    state, saved = saved_encoder(asr_dir)
    model = encoder.model.state_dict()
    assert torch.equal(model["prenet.embed_tokens.weight"], state["speecht5.decoder.prenet.embed_tokens.weight"])
    assert encoder.model.prenet.encode_positions.alpha.item() == 1.0
    wrapped = {k: v for k, v in saved.items() if k.startswith("wrapped_encoder.")}
    assert wrapped and all(torch.equal(model[k], v) for k, v in wrapped.items())


def test_unusable_model_names_raise_clear_errors(tmp_path_factory):
    with pytest.raises(ConfigurationError, match="no/such/speecht5_dir"):
        SpeechT5TextEncoder("/no/such/speecht5_dir")
    with pytest.raises(ConfigurationError, match="'wav2vec2' model"):
        SpeechT5TextEncoder(tiny_checkpoint(tmp_path_factory, "wav2vec2"))


def test_bad_inputs_raise_clear_errors(encoder, tts_dir):
    tensors = question_tensors(tts_dir)
    with pytest.raises(ValueError, match="set indexer_name"):
        encoder({"a": tensors["tokens"], "b": tensors["tokens"]})
    with pytest.raises(ValueError, match="token_ids and a mask"):
        encoder({"tokens": {"tokens": tensors["tokens"]["token_ids"]}})
    too_long = {"token_ids": torch.full((1, 451), 5), "mask": torch.ones(1, 451, dtype=torch.bool)}
    with pytest.raises(ValueError, match="450 text positions"):
        encoder({"tokens": too_long})


def test_indexer_name_picks_the_indexer(tts_dir):
    encoder = SpeechT5TextEncoder(tts_dir, indexer_name="speecht5").eval()
    tensors = question_tensors(tts_dir)["tokens"]
    with torch.no_grad():
        encoded, mask = encoder({"speecht5": tensors, "other": {"tokens": tensors["token_ids"]}})
    assert encoded.shape[:2] == mask.shape == tensors["mask"].shape


def test_freeze_trains_only_the_projection(tts_dir):
    encoder = SpeechT5TextEncoder(tts_dir, output_dim=12, freeze=True, num_layers=1).train()
    assert len(encoder.model.wrapped_encoder.layers) == 1 and not encoder.model.training
    encoded, mask = encoder(question_tensors(tts_dir))
    encoded[mask].pow(2).sum().backward()
    assert all(p.grad is None and not p.requires_grad for p in encoder.model.parameters())
    assert encoder.projection.weight.grad.abs().sum() > 0


def test_span_qa_with_a_speecht5_text_question_trains(asr_dir):
    vocab, context = context_batch(["the harbour was built in 1850 by the river", "what river flows by the harbour"])
    question_encoder = {"type": "speecht5_text", "model_name": asr_dir, "output_dim": 10}
    model = Model.from_params(vocab=vocab, params=Params(span_qa_params(question_encoder))).train()
    question = question_tensors(asr_dir, QUESTIONS[:2])
    output = model(context=context, question=question, span_start=torch.tensor([[6], [1]]), span_end=torch.tensor([[7], [1]]))
    assert torch.isfinite(output["loss"])
    output["loss"].backward()
    embeddings = model.question_encoder.model.prenet.embed_tokens.weight
    assert embeddings.grad is not None and embeddings.grad.abs().sum() > 0
