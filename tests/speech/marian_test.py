import io
import json

import pytest
import torch
from allennlp.common import Params

from srcframework.speech.engines import Translator
from srcframework.speech.marian import MarianTranslator

SENTENCES = [
    "what is the capital of france",
    "who wrote the book",
    "how many people live in the city",
    "qué es la capital de francia",
    "quién escribió el libro",
    "cuántas personas viven en la ciudad",
]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    """A tiny randomly initialised Marian model and a SentencePiece tokenizer trained on a few
    sentences, saved like real opus-mt weights (source.spm, target.spm, vocab.json, config...)."""
    import sentencepiece
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    folder = tmp_path_factory.mktemp("tiny_marian")
    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(SENTENCES),
        model_writer=model,
        vocab_size=60,
        model_type="bpe",
        character_coverage=1.0,
        hard_vocab_limit=False,
        bos_id=-1,
        eos_id=-1,
        unk_id=0,
        minloglevel=2,
    )
    for name in ("source.spm", "target.spm"):
        (folder / name).write_bytes(model.getvalue())
    processor = sentencepiece.SentencePieceProcessor(model_file=str(folder / "source.spm"))
    vocab = {"</s>": 0, "<unk>": 1}
    for i in range(processor.get_piece_size()):
        vocab.setdefault(processor.id_to_piece(i), len(vocab))
    vocab["<pad>"] = len(vocab)  # opus-mt puts <pad> last; it is also the decoder start token
    (folder / "vocab.json").write_text(json.dumps(vocab))
    MarianTokenizer(str(folder / "source.spm"), str(folder / "target.spm"), str(folder / "vocab.json")).save_pretrained(
        folder
    )
    config = MarianConfig(
        vocab_size=len(vocab),
        d_model=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        max_position_embeddings=64,
        pad_token_id=vocab["<pad>"],
        eos_token_id=vocab["</s>"],
        decoder_start_token_id=vocab["<pad>"],
        forced_eos_token_id=vocab["</s>"],
    )
    torch.manual_seed(0)
    MarianMTModel(config).save_pretrained(folder)
    return str(folder)


@pytest.fixture(scope="module")
def translator(model_dir):
    return MarianTranslator(model_name_or_path=model_dir, batch_size=2, max_length=12)


def test_translate_batch(translator):
    texts = SENTENCES[:3] + ["", "what   is\nthe book"]
    translations = translator.translate(texts)
    assert len(translations) == len(texts)
    assert all(isinstance(t, str) for t in translations)
    assert any(translations)  # random weights still produce pieces
    assert translator.translate(texts) == translations  # deterministic
    assert translator.translate([]) == []


def test_output_is_bounded_by_max_length(translator):
    for translation in translator.translate(SENTENCES):
        assert len(translator.tokenizer(translation).input_ids) <= translator.max_length


def test_batching_does_not_change_translations(model_dir, translator):
    one_at_a_time = MarianTranslator(model_name_or_path=model_dir, batch_size=1, max_length=12)
    assert one_at_a_time.translate(SENTENCES) == translator.translate(SENTENCES)


def test_beam_search_runs(model_dir):
    beams = MarianTranslator(model_name_or_path=model_dir, max_length=12, num_beams=3)
    translations = beams.translate(SENTENCES[:2])
    assert len(translations) == 2 and translations == beams.translate(SENTENCES[:2])


def test_settings_are_checked(model_dir):
    with pytest.raises(ValueError, match="at least 1"):
        MarianTranslator(model_name_or_path=model_dir, batch_size=0)


def test_from_params(model_dir):
    translator = Translator.from_params(
        Params({"type": "marian", "model_name_or_path": model_dir, "batch_size": 4, "max_length": 10})
    )
    assert isinstance(translator, MarianTranslator)
    assert (translator.batch_size, translator.max_length, translator.num_beams) == (4, 10, 1)
