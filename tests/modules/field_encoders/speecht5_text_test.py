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
from srcframework.modules.field_encoders.speecht5_text import SpeechT5TextEncoder
from tests.modules.field_encoders.encoder_checks import PretrainedEncoderChecks
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
def asr_dir(tmp_path_factory):
    return tiny_checkpoint(tmp_path_factory, "speecht5")


class TestSpeechT5TextEncoder(PretrainedEncoderChecks):
    """On a tiny speecht5_tts-style checkpoint (SpeechT5ForTextToSpeech), text prenet included."""

    encoder_class = SpeechT5TextEncoder
    name = "speecht5_text"
    kind = "speecht5_tts"
    layers = "wrapped_encoder.layers"

    def batch(self, model_dir):
        return question_tensors(model_dir)

    def lengths(self):
        return [len(q) + 2 for q in QUESTIONS]  # "▁" + the characters + "</s>"

    def small_batch(self, model_dir):
        return question_tensors(model_dir)

    def test_padding_does_not_change_encodings(self, encoder, model_dir):
        with torch.no_grad():
            together, mask = encoder(question_tensors(model_dir))
            for row, question in enumerate(QUESTIONS):
                alone, alone_mask = encoder(question_tensors(model_dir, [question]))
                length = int(alone_mask.sum())
                assert torch.allclose(together[row, :length], alone[0], atol=1e-5)

    def test_text_to_speech_checkpoint_loads_whole(self, encoder, model_dir):
        _, saved = saved_encoder(model_dir)
        state = encoder.model.state_dict()
        assert {k for k in saved} <= set(state)
        assert all(torch.equal(state[k], v) for k, v in saved.items())
        assert encoder.model.prenet.encode_positions.alpha.item() != 1.0  # the saved (jittered) value

    def test_speech_to_text_checkpoint_lends_its_decoder_embeddings(self, asr_dir, caplog):
        with caplog.at_level(logging.WARNING):
            encoder = SpeechT5TextEncoder(asr_dir)
        assert "speecht5.decoder.prenet.embed_tokens.weight" in caplog.text
        state, saved = saved_encoder(asr_dir)
        model = encoder.model.state_dict()
        assert torch.equal(model["prenet.embed_tokens.weight"], state["speecht5.decoder.prenet.embed_tokens.weight"])
        assert encoder.model.prenet.encode_positions.alpha.item() == 1.0
        wrapped = {k: v for k, v in saved.items() if k.startswith("wrapped_encoder.")}
        assert wrapped and all(torch.equal(model[k], v) for k, v in wrapped.items())

    def test_unusable_model_names_raise_clear_errors(self, tmp_path_factory):
        with pytest.raises(ConfigurationError, match="no/such/speecht5_dir"):
            SpeechT5TextEncoder("/no/such/speecht5_dir")
        with pytest.raises(ConfigurationError, match="'wav2vec2' model"):
            SpeechT5TextEncoder(tiny_checkpoint(tmp_path_factory, "wav2vec2"))

    def test_bad_inputs_raise_clear_errors(self, encoder, model_dir):
        tensors = question_tensors(model_dir)
        with pytest.raises(ValueError, match="set indexer_name"):
            encoder({"a": tensors["tokens"], "b": tensors["tokens"]})
        with pytest.raises(ValueError, match="token_ids and a mask"):
            encoder({"tokens": {"tokens": tensors["tokens"]["token_ids"]}})
        too_long = {"token_ids": torch.full((1, 451), 5), "mask": torch.ones(1, 451, dtype=torch.bool)}
        with pytest.raises(ValueError, match="450 text positions"):
            encoder({"tokens": too_long})

    def test_indexer_name_picks_the_indexer(self, model_dir):
        encoder = SpeechT5TextEncoder(model_dir, indexer_name="speecht5").eval()
        tensors = question_tensors(model_dir)["tokens"]
        with torch.no_grad():
            encoded, mask = encoder({"speecht5": tensors, "other": {"tokens": tensors["token_ids"]}})
        assert encoded.shape[:2] == mask.shape == tensors["mask"].shape

    def test_span_qa_with_a_speecht5_text_question_trains(self, asr_dir):
        contexts = ["the harbour was built in 1850 by the river", "what river flows by the harbour"]
        vocab, context = context_batch(contexts)
        question_encoder = {"type": "speecht5_text", "model_name": asr_dir, "output_dim": 10}
        model = Model.from_params(vocab=vocab, params=Params(span_qa_params(question_encoder))).train()
        question = question_tensors(asr_dir, QUESTIONS[:2])
        span = {"span_start": torch.tensor([[6], [1]]), "span_end": torch.tensor([[7], [1]])}
        output = model(context=context, question=question, **span)
        assert torch.isfinite(output["loss"])
        output["loss"].backward()
        embeddings = model.question_encoder.model.prenet.embed_tokens.weight
        assert embeddings.grad is not None and embeddings.grad.abs().sum() > 0
