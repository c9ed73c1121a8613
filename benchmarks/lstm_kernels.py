"""`padded_bilstm` against a bidirectional `torch.nn.LSTM` on packed sequences (the baseline, as
AllenNLP's `lstm` encoder runs it): forward + backward seconds for one batch shaped like BiDAF's
modelling layer input (40 x 150 x 800, lengths 100-150, hidden 100).

    .venv/bin/python benchmarks/lstm_kernels.py
"""
import time

import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from srcframework.modules.seq2seq_encoders.padded_bilstm import PaddedBiLstm


def main(batch=40, steps=150, width=800, hidden=100, repeats=3):
    torch.manual_seed(0)
    x = torch.randn(batch, steps, width, requires_grad=True)
    lengths = torch.randint(100, steps + 1, (batch,))
    lengths[0] = steps
    mask = torch.arange(steps).unsqueeze(0) < lengths.unsqueeze(1)
    packed_lstm = torch.nn.LSTM(width, hidden, batch_first=True, bidirectional=True)
    padded = PaddedBiLstm(width, hidden)

    def packed():
        out, _ = packed_lstm(pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False))
        return pad_packed_sequence(out, batch_first=True, total_length=steps)[0]

    def dense():
        return padded(x, mask)

    best = {}
    for _ in range(repeats):
        for name, run in (("packed (baseline)", packed), ("padded_bilstm", dense)):
            start = time.perf_counter()
            run().sum().backward()
            best[name] = min(best.get(name, float("inf")), time.perf_counter() - start)
    print(f"| encoder | s per forward+backward (best of {repeats}) |\n|---|---:|")
    for name, seconds in best.items():
        print(f"| {name} | {seconds:.3f} |")
    print(f"speed-up: {best['packed (baseline)'] / best['padded_bilstm']:.2f}x ({torch.get_num_threads()} threads)")


if __name__ == "__main__":
    main()
