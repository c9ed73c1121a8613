import json

import numpy
import pytest
import torch
from allennlp.common import Params

from srcframework.speech.engines import SpeechRecognizer
from srcframework.speech.wav2vec2_ctc import Wav2Vec2CtcRecognizer

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ'"
VOCAB = {"<pad>": 0, "<s>": 1, "</s>": 2, "<unk>": 3, "|": 4, **{c: i + 5 for i, c in enumerate(LETTERS)}}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    """A tiny randomly initialised wav2vec2 CTC model with its processor, saved like real weights."""
    from transformers import (
        Wav2Vec2Config,
        Wav2Vec2CTCTokenizer,
        Wav2Vec2FeatureExtractor,
        Wav2Vec2ForCTC,
        Wav2Vec2Processor,
    )

    folder = tmp_path_factory.mktemp("tiny_wav2vec2")
    (folder / "vocab.json").write_text(json.dumps(VOCAB))
    tokenizer = Wav2Vec2CTCTokenizer(
        str(folder / "vocab.json"), unk_token="<unk>", pad_token="<pad>", word_delimiter_token="|"
    )
    extractor = Wav2Vec2FeatureExtractor(
        feature_size=1, sampling_rate=16000, padding_value=0.0, do_normalize=True, return_attention_mask=True
    )
    Wav2Vec2Processor(feature_extractor=extractor, tokenizer=tokenizer).save_pretrained(folder)
    config = Wav2Vec2Config(
        vocab_size=len(VOCAB),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        conv_dim=(16, 16),
        conv_kernel=(10, 4),
        conv_stride=(5, 4),
        num_conv_pos_embeddings=8,
        num_conv_pos_embedding_groups=2,
        feat_extract_norm="layer",
        do_stable_layer_norm=True,
        pad_token_id=VOCAB["<pad>"],
        ctc_loss_reduction="mean",
    )
    torch.manual_seed(0)
    Wav2Vec2ForCTC(config).save_pretrained(folder)
    return str(folder)


@pytest.fixture(scope="module")
def recognizer(model_dir):
    return Wav2Vec2CtcRecognizer(model_name_or_path=model_dir, batch_size=8)


def waveforms(rate):
    rng = numpy.random.default_rng(0)
    return [(rng.normal(size=n) * 0.1).astype(numpy.float32) for n in (rate, rate // 2, rate // 10, 3 * rate // 2)]


def test_batch_output(recognizer):
    inputs = waveforms(8000)  # not the model's rate: resampled to 16 kHz
    transcripts = recognizer.transcribe(inputs, 8000)
    assert len(transcripts) == len(inputs)
    assert all(isinstance(t, str) and t == t.lower() for t in transcripts)
    assert any(transcripts)  # random weights still emit characters
    assert set("".join(transcripts)) <= set(LETTERS.lower() + " ")
    assert recognizer.transcribe(inputs, 8000) == transcripts  # deterministic


def test_batching_does_not_change_transcripts(model_dir, recognizer):
    inputs = waveforms(16000)
    one_at_a_time = Wav2Vec2CtcRecognizer(model_name_or_path=model_dir, batch_size=1)
    assert recognizer.transcribe(inputs, 16000) == one_at_a_time.transcribe(inputs, 16000)


def test_empty_and_very_short_input(recognizer):
    transcripts = recognizer.transcribe([numpy.zeros(0, numpy.float32), numpy.zeros(10, numpy.float32)], 16000)
    assert transcripts[0] == "" and isinstance(transcripts[1], str)
    assert recognizer.transcribe([], 16000) == []


def test_greedy_decoding_of_known_logits(recognizer):
    path = ["<s>", "C", "C", "<pad>", "A", "A", "|", "|", "B", "<pad>", "B", "<unk>", "Q", "</s>", "|"]
    logits = torch.full((1, len(path), len(VOCAB)), -5.0)
    for frame, token in enumerate(path):
        logits[0, frame, VOCAB[token]] = 5.0
    assert recognizer.decode(logits) == ["ca bbq"]
    assert recognizer.decode(logits, frames=[9]) == ["ca b"]  # frames past 9 are batch padding
    assert recognizer.decode(torch.cat([logits, logits.flip(1)]), frames=[15, 5]) == ["ca bbq", "qb"]


def test_stereo_input_is_downmixed(recognizer):
    mono = waveforms(16000)[0]
    stereo = numpy.stack([mono, mono], axis=1)
    assert recognizer.transcribe([stereo], 16000) == recognizer.transcribe([mono], 16000)


def test_from_params(model_dir):
    recognizer = SpeechRecognizer.from_params(
        Params({"type": "wav2vec2_ctc", "model_name_or_path": model_dir, "batch_size": 2})
    )
    assert isinstance(recognizer, Wav2Vec2CtcRecognizer)
    assert recognizer.batch_size == 2 and recognizer.sample_rate == 16000
    assert recognizer.min_samples == 10 + 5 * 3  # receptive field of the (10, 4) / (5, 4) conv stack
