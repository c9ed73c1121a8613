import pytest
import torch
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.data import Batch, Instance, Vocabulary
from allennlp.data.fields import TextField
from allennlp.data.token_indexers import PretrainedTransformerIndexer, TokenIndexer
from allennlp.data.tokenizers import Token, WhitespaceTokenizer

from srcframework.data.token_indexers.speecht5 import SpeechT5TokenIndexer, detokenize
from srcframework.data.tokenizers.blank_spacy import BlankSpacyTokenizer
from tests.tiny_models import tiny_checkpoint


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_checkpoint(tmp_path_factory, "speecht5")


@pytest.fixture(scope="module")
def indexer(model_dir):
    return SpeechT5TokenIndexer(model_dir)


def test_auto_tokenizer_loads_the_speecht5_tokenizer(model_dir):
    from transformers import AutoTokenizer, SpeechT5Tokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    assert isinstance(tokenizer, SpeechT5Tokenizer)
    assert tokenizer.tokenize("Who is it?") == ["▁", "W", "h", "o", "▁", "i", "s", "▁", "i", "t", "?"]


def test_pretrained_transformer_indexer_cannot_use_it(model_dir):
    """Why this indexer exists: AllenNLP's finds special tokens by encoding "a" and "b", and
    every SpeechT5 encoding of a word starts with the same piece "▁"."""
    with pytest.raises(AssertionError):
        PretrainedTransformerIndexer(model_dir)


def test_is_registered(model_dir):
    assert TokenIndexer.by_name("speecht5") is SpeechT5TokenIndexer
    indexer = TokenIndexer.from_params(Params({"type": "speecht5", "model_name": model_dir, "lowercase": True}))
    assert isinstance(indexer, SpeechT5TokenIndexer) and indexer.lowercase


def test_detokenize_follows_the_offsets():
    text = "Who wrote it, and when?"
    assert detokenize(BlankSpacyTokenizer().tokenize(text)) == text
    assert detokenize([Token("Who"), Token("wrote"), Token("it"), Token("?")]) == "Who wrote it ?"
    assert detokenize([Token("a", idx=0), Token("b", idx=1)]) == "ab"  # idx_end from the text length


def test_ids_are_the_tokenizers_encoding_of_the_question(indexer):
    question = "Who wrote it, and when?"
    indexed = indexer.tokens_to_indices(BlankSpacyTokenizer().tokenize(question), Vocabulary())
    assert indexed["token_ids"] == indexer._tokenizer(question)["input_ids"]
    assert indexed["token_ids"][-1] == indexer._tokenizer.eos_token_id
    assert indexed["mask"] == [True] * (len(question) + 2)  # "▁", one piece a character, "</s>"


def test_tokens_without_offsets_are_joined_with_spaces(indexer):
    indexed = indexer.tokens_to_indices(WhitespaceTokenizer().tokenize("Who  wrote it ?"), Vocabulary())
    assert indexed["token_ids"] == indexer._tokenizer("Who wrote it ?")["input_ids"]


def test_lowercase_and_max_length(model_dir):
    tokens = BlankSpacyTokenizer().tokenize("WHO?")
    lower = SpeechT5TokenIndexer(model_dir, lowercase=True)
    assert lower.tokens_to_indices(tokens, Vocabulary())["token_ids"] == lower._tokenizer("who?")["input_ids"]
    short = SpeechT5TokenIndexer(model_dir, max_length=3)
    ids = short.tokens_to_indices(tokens, Vocabulary())["token_ids"]
    assert len(ids) == 3 and ids[-1] == short._tokenizer.eos_token_id
    with pytest.raises(ConfigurationError, match="at least 2"):
        SpeechT5TokenIndexer(model_dir, max_length=1)


def test_batches_pad_with_the_pad_id(indexer):
    tokenizer = BlankSpacyTokenizer()
    batch = Batch([Instance({"q": TextField(tokenizer.tokenize(q), {"tokens": indexer})}) for q in ["Who?", "Who is it?"]])
    batch.index_instances(Vocabulary())
    tensors = batch.as_tensor_dict()["q"]["tokens"]
    assert set(tensors) == {"token_ids", "mask"}
    assert tensors["mask"].dtype == torch.bool and tensors["mask"].sum(-1).tolist() == [6, 12]
    pad = indexer._tokenizer.pad_token_id
    assert (tensors["token_ids"][0, 6:] == pad).all() and tensors["token_ids"].shape == (2, 12)


def test_missing_model_raises_a_clear_error():
    with pytest.raises(ConfigurationError, match="no/such/tokenizer_dir"):
        SpeechT5TokenIndexer("/no/such/tokenizer_dir")
