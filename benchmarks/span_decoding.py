"""Best-span decoding: the full n x n score matrix (the baseline, `full_matrix_best_span`, the
algorithm `span_ops.best_span` used before) against `span_ops.best_span`, which builds only
n x max_span_length scores. Seconds (best of `--repeats`) and peak resident memory added by the
decoding, each case in a fresh process, at context lengths of 1k, 10k and 40k tokens.

    .venv/bin/python benchmarks/span_decoding.py [--lengths 1000 10000 40000] [--max-span-length 30]

A baseline case whose matrices would not fit in half the memory available now is skipped and
reported as such (at 40k tokens it needs about 16 GB, 4 times what 20k needs).
"""
import argparse
import json
import resource
import subprocess
import sys
import time

import torch


def full_matrix_best_span(start_logits: torch.Tensor, end_logits: torch.Tensor, max_span_length: int) -> torch.LongTensor:
    """The baseline: scores of every (start, end) pair, B x n x n, masked to start <= end <
    start + max length, then one argmax."""
    length = start_logits.size(1)
    scores = start_logits.unsqueeze(2) + end_logits.unsqueeze(1)
    allowed = torch.ones(length, length, dtype=torch.bool, device=scores.device).triu()
    if max_span_length > 0:
        allowed = allowed & ~torch.ones_like(allowed).triu(max_span_length)
    scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
    flat = scores.view(scores.size(0), -1).argmax(-1)
    return torch.stack([flat // length, flat % length], dim=-1)


def bounded_best_span(start_logits, end_logits, max_span_length):
    from srcframework.modules.span_heads.span_ops import best_span

    return best_span(start_logits, end_logits, max_span_length)


ALGORITHMS = {"full n x n (baseline)": full_matrix_best_span, "bounded n x K": bounded_best_span}


def max_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def available_bytes() -> int:
    with open("/proc/meminfo") as handle:
        for line in handle:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def baseline_bytes_needed(length: int, batch: int = 1) -> int:
    # at the peak (masked_fill): two float score matrices and two boolean masks, 10 bytes a pair
    return batch * length * length * 10


def run_case(algorithm: str, length: int, max_span_length: int, repeats: int) -> dict:
    """One case in this process: seconds (best of `repeats`), peak RSS added, and the span."""
    torch.manual_seed(0)
    start, end = torch.randn(1, length), torch.randn(1, length)
    decode = ALGORITHMS[algorithm]
    decode(start[:, :64], end[:, :64], max_span_length)  # warm up kernels and imports
    before = max_rss_bytes()
    best = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        span = decode(start, end, max_span_length)
        best = min(best, time.perf_counter() - began)
    return {"seconds": best, "peak_bytes": max(0, max_rss_bytes() - before), "span": span.tolist()}


def in_fresh_process(algorithm: str, length: int, max_span_length: int, repeats: int) -> dict:
    command = [sys.executable, __file__, "--case", algorithm, str(length), str(max_span_length), str(repeats)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def megabytes(value: int) -> str:
    return f"{value / 2**20:,.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[1000, 10000, 40000])
    parser.add_argument("--max-span-length", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--case", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        algorithm, length, max_span_length, repeats = args.case
        print(json.dumps(run_case(algorithm, int(length), int(max_span_length), int(repeats))))
        return
    baseline, bounded = list(ALGORITHMS)
    print(f"best span of 1 x n random logits, max_span_length {args.max_span_length}, "
          f"{torch.get_num_threads()} threads, best of {args.repeats} (1 at 40k and above)\n")
    print("| tokens | algorithm | score elements | seconds | peak MB added | time ratio | memory ratio |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for length in args.lengths:
        repeats = 1 if length >= 40000 else args.repeats
        results = {}
        for algorithm in ALGORITHMS:
            needed = baseline_bytes_needed(length)
            if algorithm == baseline and needed > available_bytes() / 2:
                results[algorithm] = {"error": f"skipped: needs about {needed / 2**30:.0f} GB, "
                                               f"{available_bytes() / 2**30:.0f} GB available"}
            else:
                results[algorithm] = in_fresh_process(algorithm, length, args.max_span_length, repeats)
        old, new = results[baseline], results[bounded]
        same = "error" in old or "error" in new or old["span"] == new["span"]
        for algorithm, result in results.items():
            elements = length * (length if algorithm == baseline else min(length, args.max_span_length))
            if "error" in result:
                print(f"| {length:,} | {algorithm} | {elements:,} | {result['error']} | | | |")
                continue
            time_ratio = memory_ratio = ""
            if algorithm == bounded and "error" not in old:
                time_ratio = f"{old['seconds'] / max(new['seconds'], 1e-9):,.0f}x"
                # below 1 MB the growth of the peak resident memory is not measurable
                memory_ratio = f"{old['peak_bytes'] / new['peak_bytes']:,.0f}x" if new["peak_bytes"] >= 2**20 else "n/a"
            print(f"| {length:,} | {algorithm} | {elements:,} | {result['seconds']:.4f} | "
                  f"{megabytes(result['peak_bytes'])} | {time_ratio} | {memory_ratio} |")
        if not same:
            print(f"MISMATCH at {length}: baseline {old['span']} vs bounded {new['span']}")
    print("\n(score elements: entries of the score tensor; peak MB added: growth of the process's "
          "peak resident memory while decoding, not measurable below about 1 MB)")


if __name__ == "__main__":
    main()
