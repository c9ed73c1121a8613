"""A long context in a batch of short ones: the BiDAF `span_qa` model (the sizes of
`training_configs/lib/bidaf.libsonnet`: 50-d word embeddings, a 100-filter character CNN, a
100-unit BiLSTM phrase layer and the `bi_attention` head) answering a batch padded to its longest
context (the baseline: `group_by_length=False`, how `SpanQA` ran before) against the same batch run
in groups of similar length (`srcframework.models.length_groups`, the default). Seconds and peak
resident memory added by one forward pass (inference, no gradients), each case in a fresh process,
and whether both give the same spans.

Cases: a batch of `--batch-size` (32: `cascade`'s and the studies' batch) with one context of L
tokens among contexts of 150 (SQuAD's typical length), and one context of L tokens alone, to show
how time grows with L. 200,000 characters of English text are about 40,000 tokens. Then
`--questions` questions on one context of each `--shared` length (as `allennlp evaluate` and
`predict --batch-size` batch them): every row encoding the context (the baseline,
`share_context_encodings=False`, how `SpanQA` ran before) against one encoding of it shared by
the rows.

    .venv/bin/python benchmarks/long_context.py [--lengths 2500 10000 40000] [--alone 10000 20000 40000 80000] \
        [--questions 8 --shared 10000 40000]

A baseline case whose padded batch (rows x longest context) exceeds `--baseline-max-positions`
is skipped and reported with the memory it would need at the bytes per padded position measured in
the largest baseline case that ran.
"""
import argparse
import json
import resource
import subprocess
import sys
import time

import torch

SHORT = 150  # tokens of the short contexts
QUESTION = 12  # tokens of every question
WORD = 8  # characters of every word


def max_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def build_model(group_by_length: bool, share_context_encodings: bool = True):
    """The BiDAF `span_qa` model with random weights (a random 50-d embedding where the config
    has GloVe: the same shapes and work)."""
    from allennlp.common import Params
    from allennlp.data import Vocabulary
    from allennlp.models import Model

    import srcframework  # noqa: F401  (registers the components)

    vocab = Vocabulary()
    vocab.add_tokens_to_namespace([f"w{k}" for k in range(2000)], "tokens")
    vocab.add_tokens_to_namespace([chr(c) for c in range(33, 127)], "token_characters")
    params = {
        "type": "span_qa",
        "group_by_length": group_by_length,
        "share_context_encodings": share_context_encodings,
        "context_encoder": {
            "type": "text",
            "text_field_embedder": {"token_embedders": {
                "tokens": {"type": "embedding", "embedding_dim": 50, "trainable": False},
                "token_characters": {
                    "type": "character_encoding",
                    "embedding": {"embedding_dim": 16},
                    "encoder": {"type": "cnn", "embedding_dim": 16, "num_filters": 100, "ngram_filter_sizes": [5]},
                    "dropout": 0.2,
                },
            }},
            "highway_layers": 2,
            "encoder": {"type": "padded_bilstm", "input_size": 150, "hidden_size": 100},
            "dropout": 0.2,
        },
        "span_head": {"type": "bi_attention", "input_dim": 200, "modeling_layers": 2, "dropout": 0.2,
                      "max_span_length": 30},
    }
    torch.manual_seed(0)
    model = Model.from_params(vocab=vocab, params=Params(params))
    model.eval()
    return model


def text_tensors(lengths, vocab_size: int, char_size: int, generator: torch.Generator) -> dict:
    """Token ids and character ids of rows of these lengths, padded with zeros after each row."""
    width = max(lengths)
    tokens = torch.zeros(len(lengths), width, dtype=torch.long)
    chars = torch.zeros(len(lengths), width, WORD, dtype=torch.long)
    for row, length in enumerate(lengths):
        tokens[row, :length] = torch.randint(2, vocab_size, (length,), generator=generator)
        chars[row, :length] = torch.randint(2, char_size, (length, WORD), generator=generator)
    return {"tokens": {"tokens": tokens}, "token_characters": {"token_characters": chars}}


SHARED, EVERY_ROW = "one encoding shared", "one encoding a row (baseline)"


def run_case(algorithm: str, lengths) -> dict:
    """One forward pass of the model in this process: seconds, peak RSS added, the best spans.
    The two algorithms of questions on one context give every row the first row's context."""
    model = build_model(group_by_length=algorithm != "padded batch (baseline)",
                        share_context_encodings=algorithm != EVERY_ROW)
    generator = torch.Generator().manual_seed(1)
    vocab_size = model.vocab.get_vocab_size("tokens")
    char_size = model.vocab.get_vocab_size("token_characters")
    context = text_tensors(lengths, vocab_size, char_size, generator)
    if algorithm in (SHARED, EVERY_ROW):
        context = {name: {key: tensor[:1].expand_as(tensor).contiguous() for key, tensor in group.items()}
                   for name, group in context.items()}
    question = text_tensors([QUESTION] * len(lengths), vocab_size, char_size, generator)
    with torch.no_grad():  # warm up kernels and imports on a small batch
        model(text_tensors([20, 20], vocab_size, char_size, generator), text_tensors([5, 5], vocab_size, char_size,
                                                                                     generator))
        before = max_rss_bytes()
        began = time.perf_counter()
        output = model(context, question)
        seconds = time.perf_counter() - began
    return {"seconds": seconds, "peak_bytes": max(0, max_rss_bytes() - before), "spans": output["best_span"].tolist()}


def in_fresh_process(algorithm: str, lengths) -> dict:
    command = [sys.executable, __file__, "--case", algorithm, json.dumps(lengths)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def megabytes(value: float) -> str:
    return f"{value / 2 ** 20:,.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lengths", type=int, nargs="+", default=[2500, 10000, 40000],
                        help="tokens of the long context in a batch of short ones")
    parser.add_argument("--alone", type=int, nargs="+", default=[10000, 20000, 40000, 80000],
                        help="tokens of a context answered alone (the new way only)")
    parser.add_argument("--questions", type=int, default=8, help="questions on one context (--shared)")
    parser.add_argument("--shared", type=int, nargs="+", default=[10000, 40000],
                        help="tokens of the context that --questions questions share")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--baseline-max-positions", type=int, default=32 * 10000,
                        help="skip a baseline case whose padded batch has more positions than this")
    parser.add_argument("--case", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case[0], json.loads(args.case[1]))))
        return

    print(f"one forward pass of BiDAF span_qa (inference), each case in a fresh process, torch threads: "
          f"{torch.get_num_threads()}\n")
    print("| batch | algorithm | padded positions | seconds | peak MB added | time ratio | memory ratio | same spans |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    bytes_per_position = None
    for length in args.lengths:
        lengths = [SHORT] * (args.batch_size - 1) + [length]
        label = f"{args.batch_size - 1} x {SHORT} + 1 x {length:,} tokens"
        positions = len(lengths) * length
        baseline = None
        if positions <= args.baseline_max_positions:
            baseline = in_fresh_process("padded batch (baseline)", lengths)
        grouped = in_fresh_process("length groups", lengths)
        if baseline is None:
            needed = f", about {bytes_per_position * positions / 2 ** 30:,.0f} GB" if bytes_per_position else ""
            print(f"| {label} | padded batch (baseline) | {positions:,} | skipped: over --baseline-max-positions"
                  f"{needed} | | | | |")
        elif "error" in baseline:
            print(f"| {label} | padded batch (baseline) | {positions:,} | failed: {baseline['error']} | | | | |")
            baseline = None
        else:
            bytes_per_position = baseline["peak_bytes"] / positions
            print(f"| {label} | padded batch (baseline) | {positions:,} | {baseline['seconds']:.2f} | "
                  f"{megabytes(baseline['peak_bytes'])} | | | |")
        if "error" in grouped:
            print(f"| {label} | length groups | | failed: {grouped['error']} | | | | |")
            continue
        group_positions = (args.batch_size - 1) * SHORT + length
        ratios = ["", "", ""]
        if baseline is not None:
            ratios = [f"{baseline['seconds'] / grouped['seconds']:.1f}x",
                      f"{baseline['peak_bytes'] / max(grouped['peak_bytes'], 1):.1f}x",
                      "yes" if baseline["spans"] == grouped["spans"] else "NO"]
        print(f"| {label} | length groups | {group_positions:,} | {grouped['seconds']:.2f} | "
              f"{megabytes(grouped['peak_bytes'])} | {' | '.join(ratios)} |")

    print("\none context alone (length groups and the baseline are the same for one row):\n")
    print("| tokens | seconds | peak MB added | ms per 1,000 tokens | MB per 1,000 tokens |")
    print("|---:|---:|---:|---:|---:|")
    for length in args.alone:
        alone = in_fresh_process("length groups", [length])
        if "error" in alone:
            print(f"| {length:,} | failed: {alone['error']} | | | |")
            continue
        print(f"| {length:,} | {alone['seconds']:.2f} | {megabytes(alone['peak_bytes'])} | "
              f"{1000 * alone['seconds'] / length * 1000:.0f} | {alone['peak_bytes'] / 2 ** 20 / length * 1000:.1f} |")

    print(f"\n{args.questions} questions on one context (in groups under the default cap of 50,000 positions):\n")
    print("| context tokens | algorithm | seconds | peak MB added | time ratio | same spans |")
    print("|---:|---|---:|---:|---:|---|")
    for length in args.shared:
        cases = {name: in_fresh_process(name, [length] * args.questions) for name in (EVERY_ROW, SHARED)}
        for name, case in cases.items():
            if "error" in case:
                print(f"| {length:,} | {name} | failed: {case['error']} | | | |")
                continue
            ratio, same = "", ""
            baseline = cases[EVERY_ROW]
            if name == SHARED and "error" not in baseline:
                ratio = f"{baseline['seconds'] / case['seconds']:.2f}x"
                same = "yes" if baseline["spans"] == case["spans"] else "NO"
            print(f"| {length:,} | {name} | {case['seconds']:.2f} | {megabytes(case['peak_bytes'])} | {ratio} | {same} |")


if __name__ == "__main__":
    main()
