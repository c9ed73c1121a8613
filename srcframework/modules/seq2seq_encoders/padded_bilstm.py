import torch
from allennlp.modules.seq2seq_encoders import Seq2SeqEncoder


def reverse_padded(inputs: torch.Tensor, lengths: torch.LongTensor) -> torch.Tensor:
    """Reverse each row's first `length` steps; padding steps stay where they are."""
    steps = torch.arange(inputs.size(1), device=inputs.device).unsqueeze(0).expand(inputs.size(0), -1)
    source = lengths.unsqueeze(1) - 1 - steps
    source = torch.where(source >= 0, source, steps)
    return inputs.gather(1, source.unsqueeze(-1).expand_as(inputs))


@Seq2SeqEncoder.register("padded_bilstm")
class PaddedBiLstm(Seq2SeqEncoder):
    """
    A multi-layer bidirectional LSTM that gives the same outputs as one run on packed sequences,
    without packing. Padding sits after each row's tokens, so the forward direction runs on the
    padded batch as it is; the backward direction runs forward over each row reversed within its
    own length. Both then use the dense LSTM kernel, which on CPU trains about twice as fast as
    the packed-sequence path (`benchmarks/train_throughput.py`). Padding positions output zeros.

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
        self.dropout = torch.nn.Dropout(dropout)

    def get_input_dim(self) -> int:
        return self.input_size

    def get_output_dim(self) -> int:
        return 2 * self.hidden_size

    def is_bidirectional(self) -> bool:
        return True

    def forward(self, inputs: torch.Tensor, mask: torch.BoolTensor, hidden_state=None) -> torch.Tensor:
        lengths = mask.sum(-1).clamp(min=1)
        keep = mask.unsqueeze(-1).to(inputs.dtype)
        output = inputs
        for layer, (forward_lstm, backward_lstm) in enumerate(zip(self.forward_layers, self.backward_layers)):
            if layer > 0:
                output = self.dropout(output)
            forward_out, _ = forward_lstm(output)
            backward_out, _ = backward_lstm(reverse_padded(output, lengths))
            output = torch.cat([forward_out, reverse_padded(backward_out, lengths)], dim=-1) * keep
        return output
