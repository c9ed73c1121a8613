import torch
from allennlp.modules.seq2seq_encoders import Seq2SeqEncoder

from srcframework.modules.dropout import Dropout
from srcframework.modules.seq2seq_encoders.two_directions import both_directions


def _reverse_index(lengths: torch.LongTensor, steps: int) -> torch.LongTensor:
    positions = torch.arange(steps, device=lengths.device).unsqueeze(0).expand(lengths.size(0), -1)
    source = lengths.unsqueeze(1) - 1 - positions
    return torch.where(source >= 0, source, positions)


def _rows(inputs: torch.Tensor, index: torch.LongTensor) -> torch.Tensor:
    """`inputs` (batch, steps, features) with step `index[b, t]` of each row `b` at `t`: whole
    feature vectors selected (`index_select` on the flattened batch x steps), about five times
    faster than `gather` along the steps with an index expanded over the features, which reads an
    index an element. A time-major tensor seen batch first (what the LSTM kernel's gradient is) is
    read where it lies, not copied first."""
    batch, steps, features = inputs.shape
    offsets = torch.arange(batch, device=index.device).unsqueeze(1)
    if not inputs.is_contiguous() and inputs.transpose(0, 1).is_contiguous():
        flat, rows = inputs.transpose(0, 1).view(steps * batch, features), index * batch + offsets
    else:
        flat, rows = inputs.reshape(batch * steps, features), index + offsets * steps
    return flat.index_select(0, rows.reshape(-1)).view(batch, steps, features)


class _Reverse(torch.autograd.Function):
    """The reversal is its own inverse, so its gradient is the gradient reversed: the same
    selection again, rather than the scatter-add that a selection's own backward runs."""

    @staticmethod
    def forward(ctx, inputs: torch.Tensor, index: torch.LongTensor) -> torch.Tensor:
        ctx.save_for_backward(index)
        return _rows(inputs, index)

    @staticmethod
    def backward(ctx, grad: torch.Tensor):
        (index,) = ctx.saved_tensors
        return _rows(grad, index), None


def reverse_padded(inputs: torch.Tensor, lengths: torch.LongTensor) -> torch.Tensor:
    """Reverse each row's first `length` steps; padding steps stay where they are."""
    return _Reverse.apply(inputs, _reverse_index(lengths, inputs.size(1)))


@Seq2SeqEncoder.register("padded_bilstm")
class PaddedBiLstm(Seq2SeqEncoder):
    """
    A multi-layer bidirectional LSTM that gives the same outputs as one run on packed sequences,
    without packing. Padding sits after each row's tokens, so the forward direction runs on the
    padded batch as it is; the backward direction runs forward over each row reversed within its
    own length. Both then use the dense LSTM kernel, which on CPU trains about twice as fast as
    the packed-sequence path (`benchmarks/train_throughput.py`). With two or more torch threads
    the two directions of a layer run side by side, one core each (`two_directions.py`), forward
    and backward. Padding positions output zeros. Dropout between layers draws byte masks
    (`srcframework.modules.dropout`).

    # Parameters

    input_size : `int`
    hidden_size : `int`
        Per direction; the output size is `2 * hidden_size`.
    num_layers : `int`, optional (default = `1`)
    dropout : `float`, optional (default = `0.0`)
        Dropout between layers.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, dropout: float = 0.0) -> None:
        super().__init__(stateful=False)
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.forward_layers = torch.nn.ModuleList()
        self.backward_layers = torch.nn.ModuleList()
        for layer in range(num_layers):
            size = input_size if layer == 0 else 2 * hidden_size
            self.forward_layers.append(torch.nn.LSTM(size, hidden_size, batch_first=True))
            self.backward_layers.append(torch.nn.LSTM(size, hidden_size, batch_first=True))
        self.dropout = Dropout(dropout)

    def get_input_dim(self) -> int:
        return self.input_size

    def get_output_dim(self) -> int:
        return 2 * self.hidden_size

    def is_bidirectional(self) -> bool:
        return True

    def forward(self, inputs: torch.Tensor, mask: torch.BoolTensor, hidden_state=None) -> torch.Tensor:
        lengths = mask.sum(-1).clamp(min=1)
        keep = mask.unsqueeze(-1)
        output = inputs
        for layer, (forward_lstm, backward_lstm) in enumerate(zip(self.forward_layers, self.backward_layers)):
            if layer > 0:
                output = self.dropout(output)

            def forward_direction(x, lstm=forward_lstm):
                return lstm(x)[0]

            def backward_direction(x, lstm=backward_lstm):
                return reverse_padded(lstm(reverse_padded(x, lengths))[0], lengths)

            output = both_directions(
                output, forward_direction, backward_direction, list(forward_lstm.parameters()), list(backward_lstm.parameters())
            )
            output = output * keep.to(output.dtype)
        return output
