"""
Tiny, randomly initialised SpeechT5 and wav2vec2 checkpoints (every weight slightly jittered),
written with `save_pretrained` so that they load through the same `from_pretrained` code as
real weights (which cannot be fetched here). Hidden size 32, 2 encoder layers, a 3-layer
convolution stack that still downsamples the 16 kHz waveform 320 times (kernels 10, 8, 8;
strides 5, 8, 8; one frame needs 325 samples) like the real 7-layer stacks (400 samples).

    python tests/tiny_models.py speecht5 OUT_DIR      # SpeechT5ForSpeechToText + processor
    python tests/tiny_models.py speecht5_tts OUT_DIR  # SpeechT5ForTextToSpeech + processor
    python tests/tiny_models.py wav2vec2 OUT_DIR      # Wav2Vec2Model + feature extractor
    python tests/tiny_models.py wav2vec2_ctc OUT_DIR  # Wav2Vec2ForCTC + processor
"""
import argparse
import io
import json
import sys
from pathlib import Path
from typing import Dict, List, Tuple, Union

import torch

# Text the tiny character-level sentencepiece model is trained on: every letter, digit and the
# usual punctuation of SQuAD questions appear at least once.
TINY_TEXT = [
    "What is the capital of France?",
    "Who wrote the book in 1984, and why?",
    "How many people lived in Zurich; Jakarta or Quebec?",
    "When did the X-ray machine (and the vaccine) become available?",
    "Which 2 or 3 rivers flow through the valley: the Rhine & the Vltava?",
    "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG 0123456789",
    "the quick brown fox jumps over the lazy dog!",
    "Its name was 'Kyoto' - \"the old capital\" / 5% of 70.",
]

CONV = {"conv_dim": (16, 16, 16), "conv_stride": (5, 8, 8), "conv_kernel": (10, 8, 8)}
TINY_ENCODER = {
    "hidden_size": 32,
    "num_conv_pos_embeddings": 16,
    "num_conv_pos_embedding_groups": 4,
    **CONV,
}
# the encoder settings of a tiny `speecht5_ctc` model (its SpeechT5 encoder config)
TINY_CTC_ENCODER = {
    "hidden_size": 32,
    "encoder_layers": 2,
    "encoder_attention_heads": 2,
    "encoder_ffn_dim": 64,
    "conv_dim": [16, 16, 16],
    "conv_kernel": [10, 8, 8],
    "conv_stride": [5, 8, 8],
    "num_conv_pos_embeddings": 16,
    "num_conv_pos_embedding_groups": 4,
}


def save_tiny_ctc_recognizer(folder: Union[str, Path]) -> str:
    """A tiny randomly initialised `speecht5_ctc` folder (seed 0; the CTC layer's weights scaled up
    and its bias zeroed, so that frames disagree about their best character and decoding gives
    more than blanks)."""
    from srcframework.speech.speecht5_ctc_network import SpeechT5CtcNetwork

    torch.manual_seed(0)
    network = SpeechT5CtcNetwork.from_config(TINY_CTC_ENCODER)
    with torch.no_grad():
        network.head.weight.mul_(20.0)
        network.head.bias.zero_()
    network.save_pretrained(str(folder))
    return str(folder)


CTC_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ'"
CTC_VOCAB = {"<pad>": 0, "<s>": 1, "</s>": 2, "<unk>": 3, "|": 4, **{c: i + 5 for i, c in enumerate(CTC_LETTERS)}}


def jitter(model: torch.nn.Module, seed: int) -> torch.nn.Module:
    """Adds a little noise to every parameter, so that no saved weight equals its initial value
    (LayerNorm weights of 1, zero biases, SpeechT5's positional scale of 1): a test can then tell
    a weight read from the checkpoint from one a faulty load left at its initial value."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(0.05 * torch.randn(parameter.shape, generator=generator))
    return model


def save_tiny_speecht5_tokenizer(folder: Union[str, Path]):
    """Trains a character sentencepiece model on `TINY_TEXT` (ids 0-3 = <s>, <pad>, </s>, <unk>,
    as in SpeechT5's spm_char.model) and saves a `SpeechT5Tokenizer` of it into `folder`."""
    import sentencepiece
    from transformers import SpeechT5Tokenizer

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(TINY_TEXT),
        model_writer=model,
        model_type="char",
        vocab_size=80,
        hard_vocab_limit=False,
        character_coverage=1.0,
        bos_id=0,
        pad_id=1,
        eos_id=2,
        unk_id=3,
        minloglevel=2,
    )
    spm_file = folder / "spm_char.model"
    spm_file.write_bytes(model.getvalue())
    tokenizer = SpeechT5Tokenizer(str(spm_file))
    tokenizer.save_pretrained(str(folder))
    return tokenizer


def tiny_speecht5_config(vocab_size: int = 81, feat_extract_norm: str = "group"):
    from transformers import SpeechT5Config

    return SpeechT5Config(
        vocab_size=vocab_size,
        encoder_layers=2,
        encoder_attention_heads=2,
        encoder_ffn_dim=64,
        decoder_layers=1,
        decoder_attention_heads=2,
        decoder_ffn_dim=64,
        feat_extract_norm=feat_extract_norm,
        num_mel_bins=8,
        speech_decoder_prenet_units=16,
        speaker_embedding_dim=8,
        speech_decoder_postnet_layers=2,
        speech_decoder_postnet_units=16,
        **TINY_ENCODER,
    )


def save_tiny_speecht5(
    folder: Union[str, Path], task: str = "asr", feat_extract_norm: str = "group", seed: int = 0
) -> Path:
    """
    Writes a tiny SpeechT5 into `folder` laid out like microsoft/speecht5_asr (`task="asr"`:
    `SpeechT5ForSpeechToText`, encoder with the speech prenet) or microsoft/speecht5_tts
    (`task="tts"`: `SpeechT5ForTextToSpeech`, encoder with the text prenet), with a
    `SpeechT5Processor` (feature extractor + character tokenizer). Returns the folder.
    """
    from transformers import (
        SpeechT5FeatureExtractor,
        SpeechT5ForSpeechToText,
        SpeechT5ForTextToSpeech,
        SpeechT5Processor,
    )

    classes = {"asr": SpeechT5ForSpeechToText, "tts": SpeechT5ForTextToSpeech}
    if task not in classes:
        raise ValueError(f"task must be one of {sorted(classes)}, got {task!r}")
    folder = Path(folder)
    tokenizer = save_tiny_speecht5_tokenizer(folder)
    extractor = SpeechT5FeatureExtractor(num_mel_bins=8)
    SpeechT5Processor(feature_extractor=extractor, tokenizer=tokenizer).save_pretrained(str(folder))
    config = tiny_speecht5_config(len(tokenizer), feat_extract_norm)
    torch.manual_seed(seed)
    jitter(classes[task](config), seed).save_pretrained(str(folder))
    return folder


def tiny_wav2vec2_config(feat_extract_norm: str = "group", vocab_size: int = 32):
    from transformers import Wav2Vec2Config

    return Wav2Vec2Config(
        vocab_size=vocab_size,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        feat_extract_norm=feat_extract_norm,
        # the large checkpoints with layer-normalised convolutions also use pre-norm layers
        do_stable_layer_norm=feat_extract_norm == "layer",
        pad_token_id=CTC_VOCAB["<pad>"],
        **TINY_ENCODER,
    )


def save_tiny_wav2vec2(
    folder: Union[str, Path], head: str = "none", feat_extract_norm: str = "group", seed: int = 0
) -> Path:
    """
    Writes a tiny wav2vec2 into `folder`: a bare `Wav2Vec2Model` with its feature extractor
    (`head="none"`, like facebook/wav2vec2-base) or a `Wav2Vec2ForCTC` with a letter processor
    (`head="ctc"`, like facebook/wav2vec2-base-960h). Returns the folder.
    """
    from transformers import (
        Wav2Vec2CTCTokenizer,
        Wav2Vec2FeatureExtractor,
        Wav2Vec2ForCTC,
        Wav2Vec2Model,
        Wav2Vec2Processor,
    )

    if head not in ("none", "ctc"):
        raise ValueError(f"head must be 'none' or 'ctc', got {head!r}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    extractor = Wav2Vec2FeatureExtractor(
        feature_size=1,
        sampling_rate=16000,
        padding_value=0.0,
        do_normalize=True,
        return_attention_mask=feat_extract_norm == "layer",
    )
    torch.manual_seed(seed)
    if head == "ctc":
        (folder / "vocab.json").write_text(json.dumps(CTC_VOCAB))
        tokenizer = Wav2Vec2CTCTokenizer(
            str(folder / "vocab.json"), unk_token="<unk>", pad_token="<pad>", word_delimiter_token="|"
        )
        Wav2Vec2Processor(feature_extractor=extractor, tokenizer=tokenizer).save_pretrained(str(folder))
        model = Wav2Vec2ForCTC(tiny_wav2vec2_config(feat_extract_norm, len(CTC_VOCAB)))
        jitter(model, seed).save_pretrained(str(folder))
    else:
        extractor.save_pretrained(str(folder))
        jitter(Wav2Vec2Model(tiny_wav2vec2_config(feat_extract_norm)), seed).save_pretrained(str(folder))
    return folder


WRITERS = {
    "speecht5": lambda out, norm: save_tiny_speecht5(out, "asr", norm),
    "speecht5_tts": lambda out, norm: save_tiny_speecht5(out, "tts", norm),
    "wav2vec2": lambda out, norm: save_tiny_wav2vec2(out, "none", norm),
    "wav2vec2_ctc": lambda out, norm: save_tiny_wav2vec2(out, "ctc", norm),
}


def audio_batch(lengths: List[int], seed: int = 0) -> Dict[str, torch.Tensor]:
    """An AudioField batch of random utterances with `lengths` samples: `{"waveform": B x T,
    "mask": B x T}`, zero-padded, each utterance scaled to zero mean and unit variance."""
    generator = torch.Generator().manual_seed(seed)
    waveform = torch.zeros(len(lengths), max(lengths))
    mask = torch.zeros(len(lengths), max(lengths), dtype=torch.bool)
    for row, length in enumerate(lengths):
        samples = torch.randn(length, generator=generator).cumsum(0)  # a random walk: low-frequency content
        samples = (samples - samples.mean()) / (samples.std(correction=0) + 1e-7)
        waveform[row, :length] = samples
        mask[row, :length] = True
    return {"waveform": waveform, "mask": mask}


def context_batch(contexts: List[str]):
    """A vocabulary and the batched TextField tensors of whitespace-split `contexts`, indexed as
    in tests/fixtures/bidaf_tiny.jsonnet (lowercased single ids + characters)."""
    from allennlp.data import Vocabulary
    from allennlp.data.fields import TextField
    from allennlp.data.token_indexers import SingleIdTokenIndexer, TokenCharactersIndexer
    from allennlp.data.tokenizers import Token

    indexers = {
        "tokens": SingleIdTokenIndexer(lowercase_tokens=True),
        "token_characters": TokenCharactersIndexer(min_padding_length=3),
    }
    fields = [TextField([Token(word) for word in context.split()], indexers) for context in contexts]
    vocab = Vocabulary()
    for field in fields:
        for token in field.tokens:
            vocab.add_token_to_namespace(token.text.lower(), "tokens")
            for character in token.text:
                vocab.add_token_to_namespace(character, "token_characters")
    for field in fields:
        field.index(vocab)
    lengths = [field.get_padding_lengths() for field in fields]
    padding = {key: max(length[key] for length in lengths) for key in lengths[0]}
    return vocab, fields[0].batch_tensors([field.as_tensor(padding) for field in fields])


def span_qa_params(question_encoder: dict, question_dim: int = 10) -> dict:
    """`span_qa` parameters: the `text` context encoder and `bi_attention` head of
    tests/fixtures/bidaf_tiny.jsonnet (width 10) with `question_encoder`."""
    glove = str(Path(__file__).resolve().parent / "fixtures" / "glove_tiny.txt")
    return {
        "type": "span_qa",
        "context_encoder": {
            "type": "text",
            "text_field_embedder": {
                "token_embedders": {
                    "tokens": {"type": "glove", "pretrained_file": glove, "embedding_dim": 8, "trainable": False},
                    "token_characters": {
                        "type": "character_encoding",
                        "embedding": {"embedding_dim": 4, "vocab_namespace": "token_characters"},
                        "encoder": {"type": "cnn", "embedding_dim": 4, "num_filters": 6, "ngram_filter_sizes": [3]},
                    },
                }
            },
            "highway_layers": 1,
            "encoder": {"type": "padded_bilstm", "input_size": 14, "hidden_size": question_dim // 2},
            "dropout": 0.0,
        },
        "question_encoder": question_encoder,
        "span_head": {"type": "bi_attention", "input_dim": question_dim, "modeling_layers": 1, "dropout": 0.0},
    }


_WRITTEN: Dict[Tuple[str, str], str] = {}


def tiny_checkpoint(tmp_path_factory, kind: str, feat_extract_norm: str = "group") -> str:
    """The folder of a tiny `kind` checkpoint (a key of `WRITERS`), written once per pytest run
    into `tmp_path_factory`'s folder and shared by every test module."""
    key = (kind, feat_extract_norm)
    if key not in _WRITTEN:
        folder = tmp_path_factory.mktemp(f"tiny_{kind}_{feat_extract_norm}")
        _WRITTEN[key] = str(WRITERS[kind](folder, feat_extract_norm))
    return _WRITTEN[key]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Write a tiny randomly initialised checkpoint to a folder.")
    parser.add_argument("kind", choices=sorted(WRITERS))
    parser.add_argument("out_dir")
    parser.add_argument(
        "--feat-extract-norm",
        choices=["group", "layer"],
        default="group",
        help="normalisation in the convolution stack (default: group, as in speecht5_asr and wav2vec2-base)",
    )
    args = parser.parse_args(argv)
    folder = WRITERS[args.kind](args.out_dir, args.feat_extract_norm)
    print(f"wrote a tiny {args.kind} to {folder}")


if __name__ == "__main__":
    main(sys.argv[1:])
