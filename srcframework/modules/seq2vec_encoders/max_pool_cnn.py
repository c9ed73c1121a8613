from typing import Optional, Sequence

import torch
from allennlp.modules.seq2vec_encoders import CnnEncoder, Seq2VecEncoder


@Seq2VecEncoder.register("max_pool_cnn")
class MaxPoolCnn(Seq2VecEncoder):
    """
    AllenNLP's `cnn` encoder (a ReLU convolution per n-gram size, max-pooled over the windows that
    lie inside each sequence's unmasked length, zeros for a sequence shorter than the n-gram),
    computed in an order that builds fewer full-size tensors: ReLU is non-decreasing, so the
    maximum of the activations is the activation of the maximum, and this encoder pools the raw
    convolution (windows outside the length set to -inf in place) before applying ReLU to the
    pooled (batch x filters) result. Sequences too short for a filter get 0 without a convolution,
    and the others are convolved in groups by length, each only as far as its longest member. The
    outputs and the input gradient are those of `cnn` with `conv_layer_activation` ReLU and no
    output projection bit for bit, the weight gradients up to the order in which float sums add
    (`tests/modules/seq2vec_encoders/`); the parameter names are the same, so weights move between
    the two, and the `text` field encoder runs every `cnn` character encoder it is given as this one
    (`from_cnn`), so configs and archives keep `cnn`. On BiDAF's character input (SQuAD words, half of them shorter than 5 characters, padded
    to the batch's longest) a training step's encoder runs about 7 times as fast
    (`benchmarks/train_throughput.py`).

    # Parameters

    embedding_dim : `int`
        The size of each input vector (a character embedding, for BiDAF's character encoder).
    num_filters : `int`
        Output filters per n-gram size.
    ngram_filter_sizes : `Sequence[int]`, optional (default = `(2, 3, 4, 5)`)
        One convolution of each width; the output is their pooled filters side by side.
    """

    def __init__(self, embedding_dim: int, num_filters: int, ngram_filter_sizes: Sequence[int] = (2, 3, 4, 5)) -> None:
        super().__init__()
        if not ngram_filter_sizes:
            raise ValueError("max_pool_cnn: ngram_filter_sizes is empty; give at least one width")
        self._embedding_dim = embedding_dim
        self._num_filters = num_filters
        self._ngram_filter_sizes = tuple(ngram_filter_sizes)
        for i, size in enumerate(self._ngram_filter_sizes):
            self.add_module(f"conv_layer_{i}", torch.nn.Conv1d(embedding_dim, num_filters, kernel_size=size))

    @classmethod
    def from_cnn(cls, cnn: CnnEncoder) -> Optional["MaxPoolCnn"]:
        """This encoder over `cnn`'s own convolutions (the same parameter objects; no random
        draw), or None where `cnn` computes something else: an activation other than ReLU, or an
        output projection."""
        if not isinstance(cnn._activation, torch.nn.ReLU) or cnn.projection_layer is not None:
            return None
        encoder = cls.__new__(cls)
        Seq2VecEncoder.__init__(encoder)
        encoder._embedding_dim = cnn._embedding_dim
        encoder._num_filters = cnn._num_filters
        encoder._ngram_filter_sizes = tuple(cnn._ngram_filter_sizes)
        for i in range(len(encoder._ngram_filter_sizes)):
            encoder.add_module(f"conv_layer_{i}", getattr(cnn, f"conv_layer_{i}"))
        return encoder

    def get_input_dim(self) -> int:
        return self._embedding_dim

    def get_output_dim(self) -> int:
        return self._num_filters * len(self._ngram_filter_sizes)

    def forward(self, tokens: torch.Tensor, mask: torch.BoolTensor = None) -> torch.Tensor:
        if mask is not None:
            tokens = tokens * mask.unsqueeze(-1)
            lengths = mask.sum(dim=1)
        else:
            lengths = tokens.new_full((tokens.size(0),), tokens.size(1), dtype=torch.long)
        pooled = [self._pool(getattr(self, f"conv_layer_{i}"), size, tokens, lengths)
                  for i, size in enumerate(self._ngram_filter_sizes)]
        return torch.cat(pooled, dim=1) if len(pooled) > 1 else pooled[0]

    def _pool(self, conv: torch.nn.Conv1d, size: int, tokens: torch.Tensor, lengths: torch.LongTensor) -> torch.Tensor:
        output = tokens.new_zeros(tokens.size(0), self._num_filters)
        longest = tokens.size(1)
        # a sequence shorter than `size` has no window: its output is 0 and takes no gradient, as
        # with `cnn`; the others go in groups by length, each convolved over its own longest length
        # only (the windows past a sequence's end are masked whatever the padding)
        low = size
        for high in (size + 3, size + 7, longest):
            if high < low:
                continue
            high = min(high, longest)
            rows = ((lengths >= low) & (lengths <= high)).nonzero().squeeze(1)
            low = high + 1
            if rows.numel() == 0:
                continue
            windows = conv(tokens.index_select(0, rows)[:, :high].transpose(1, 2))
            starts = torch.arange(windows.size(2), device=windows.device).unsqueeze(0)
            outside = starts >= (lengths.index_select(0, rows) - size + 1).unsqueeze(1)
            penalty = torch.zeros(outside.shape, dtype=windows.dtype, device=windows.device)
            # the convolution's output is not needed by its backward pass, so it is masked in place
            best = windows.add_(penalty.masked_fill_(outside, float("-inf")).unsqueeze(1)).max(dim=2).values
            output = output.index_copy(0, rows, torch.relu(best))
            if high == longest:
                break
        return output
