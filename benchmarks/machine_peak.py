"""The machine's float32 peak against what a BiDAF training step achieves.

Peak: torch matmul GFLOP/s (2*m*k*n per product) at the sizes a BiDAF training step multiplies
(the input projection of the 800-wide modelling LSTM for a 40 x 150 batch, the LSTM recurrence
40x100 @ 100x400, the character CNN as a GEMM 8800x80 @ 80x100) and one large 2048^3 product (the
machine's best), each at 1 and 2 torch threads (`torch.set_num_threads`), each thread count in its
own process, best of `--repeats`.

Achieved: srcframework's BiDAF built as `benchmarks/train_throughput.py`'s `ours()` builds it, on
its same batches (`make_batches`), one training step (forward, backward, gradient clipping, Adam)
timed over `--steps` steps after `--warmup`, its FLOPs counted once: by torch.profiler
(`with_flops=True`: the matrix products and element-wise ops it knows) and, for what the profiler
does not count, by formula from the shapes seen by forward hooks: each LSTM direction
(2*4H*(I+H)*B a time step forward, about twice that backward) and the character CNN's conv1d
(2*C_in*K*C_out*L_out*B forward, about twice that backward). The step's GFLOP/s is printed as a %
of the 2-thread large-GEMM peak and of a size-matched peak (each part of the step's FLOPs at the
rate of the GEMM of its size, at the step's thread count). Then the profile of a step by category
(LSTM, attention/similarity, char CNN, highway/linear, dropout, optimizer, other), from
torch.profiler's events grouped by op name, as % of the step's CPU time.

    .venv/bin/python benchmarks/machine_peak.py [--repeats 5 --steps 5 --step-threads 2]

`--quick` (the test) measures briefly on two batches of 2 of the tiny fixture. Other benchmarks
can import `peak_gflops(threads)` (in this process) and `step_flops(model, batch, optimizer)`.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

# label -> (m, k, n)
SHAPES = {
    "LSTM input projection (40*150)x800 @ 800x400": (6000, 800, 400),
    "LSTM recurrence 40x100 @ 100x400": (40, 100, 400),
    "char CNN as GEMM 8800x80 @ 80x100": (8800, 80, 100),
    "large 2048 x 2048 @ 2048 x 2048": (2048, 2048, 2048),
}
LARGE = "large 2048 x 2048 @ 2048 x 2048"
PROJECTION, RECURRENCE, CHAR_CNN = list(SHAPES)[:3]


def peak_gflops(threads: int, repeats: int = 5, seconds: float = 0.3, shapes=None) -> dict:
    """float32 matmul GFLOP/s of each shape at `threads` torch threads in this process (restored
    afterwards): best of `repeats` timings, each of as many products as fill about `seconds`."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        found = {}
        generator = torch.Generator().manual_seed(0)
        for label, (m, k, n) in (shapes or SHAPES).items():
            a = torch.randn(m, k, generator=generator)
            b = torch.randn(k, n, generator=generator)
            out = torch.empty(m, n)
            torch.mm(a, b, out=out)  # warm up
            began = time.perf_counter()
            torch.mm(a, b, out=out)
            once = max(time.perf_counter() - began, 1e-7)
            count = max(1, int(seconds / once))
            best = float("inf")
            for _ in range(repeats):
                began = time.perf_counter()
                for _ in range(count):
                    torch.mm(a, b, out=out)
                best = min(best, (time.perf_counter() - began) / count)
            found[label] = 2.0 * m * k * n / best / 1e9
        return found
    finally:
        torch.set_num_threads(before)


def peak_in_fresh_process(threads: int, repeats: int, seconds: float) -> dict:
    command = [sys.executable, __file__, "--peak-child", str(threads), "--repeats", str(repeats),
               "--seconds", str(seconds)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        sys.exit(f"the {threads}-thread peak run failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def lstm_formula_hooks(model, counts: dict):
    """Forward hooks that add each `torch.nn.LSTM`'s and `torch.nn.Conv1d`'s FLOPs to `counts`
    (forward, by formula from the shapes; the backward is counted as twice the forward)."""
    import torch

    def on_lstm(module, inputs, output):
        x = inputs[0]
        if isinstance(x, torch.nn.utils.rnn.PackedSequence):
            steps_times_batch = x.data.size(0)
        else:
            batch, steps = (x.size(0), x.size(1)) if module.batch_first else (x.size(1), x.size(0))
            steps_times_batch = batch * steps
        size = x.size(-1) if not isinstance(x, torch.nn.utils.rnn.PackedSequence) else x.data.size(-1)
        hidden = module.hidden_size
        directions = 2 if module.bidirectional else 1
        for layer in range(module.num_layers):
            inner = size if layer == 0 else hidden * directions
            counts["lstm_input"] += directions * 2 * 4 * hidden * inner * steps_times_batch
            counts["lstm_recurrent"] += directions * 2 * 4 * hidden * hidden * steps_times_batch

    def on_conv(module, inputs, output):
        out = output
        batch, channels_out, length_out = out.size(0), out.size(1), out.size(-1)
        counts["conv"] += 2 * module.in_channels // module.groups * module.kernel_size[0] * channels_out \
            * length_out * batch

    handles = []
    for module in model.modules():
        if isinstance(module, torch.nn.LSTM):
            handles.append(module.register_forward_hook(on_lstm))
        elif isinstance(module, torch.nn.Conv1d):
            handles.append(module.register_forward_hook(on_conv))
    return handles


def train_step(model, batch, optimizer) -> None:
    import torch

    with torch.profiler.record_function("forward"):
        optimizer.zero_grad()
        loss = model(**batch)["loss"]
    with torch.profiler.record_function("backward"):
        loss.backward()
    with torch.profiler.record_function("optimizer"):
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()


CATEGORIES = [  # first match wins; matched against the lowercased op name
    # padded_bilstm's directions run in two worker threads (two_directions.py): the main thread's
    # _BothDirections ops hold the wall time of both, side by side
    ("LSTM", ("rnn", "lstm", "bothdirections")),
    ("char CNN", ("conv", "max_pool", "aten::max", "maxbackward")),
    ("attention/similarity", ("bmm", "softmax", "masked_fill", "where")),
    ("highway/linear", ("addmm", "aten::mm", "mmbackward", "linear", "sigmoid", "relu", "threshold", "aten::t",
                        "transpose")),
    # srcframework's Dropout: random bits, the mask, masked_scale's addcmul (Adam's own ops are counted
    # in the optimizer's scope first)
    ("dropout", ("dropout", "bernoulli", "random_", "applymask", "droppedprojection", "addcmul")),
]
CATEGORY_NAMES = [name for name, _ in CATEGORIES] + ["optimizer", "other"]


def category(name: str) -> str:
    lower = name.lower()
    for label, keys in CATEGORIES:
        if any(key in lower for key in keys):
            return label
    return "other"


def step_flops(model, batch, optimizer) -> dict:
    """One training step under torch.profiler (`with_flops=True`) and the formula hooks: the FLOPs
    the profiler counts, the LSTM and conv1d FLOPs by formula (backward = 2 x forward), the step's
    CPU time by category (self time of its ops; the optimizer's scope as one) and by op name."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    counts = {"lstm_input": 0, "lstm_recurrent": 0, "conv": 0}
    handles = lstm_formula_hooks(model, counts)
    try:
        with profile(activities=[ProfilerActivity.CPU], with_flops=True) as prof:
            train_step(model, batch, optimizer)
    finally:
        for handle in handles:
            handle.remove()
    profiler_flops = sum(event.flops for event in prof.key_averages())
    by_category = {name: 0.0 for name in CATEGORY_NAMES}
    by_op = {}
    for event in prof.events():
        top = event
        while top.cpu_parent is not None:
            top = top.cpu_parent
        label = "optimizer" if top.name == "optimizer" else category(event.name)
        by_category[label] += event.self_cpu_time_total / 1e6
        by_op[event.name] = by_op.get(event.name, 0.0) + event.self_cpu_time_total / 1e6
    return {
        "profiler_flops": float(profiler_flops),
        "lstm_flops": 3.0 * (counts["lstm_input"] + counts["lstm_recurrent"]),
        "lstm_input_flops": 3.0 * counts["lstm_input"],
        "lstm_recurrent_flops": 3.0 * counts["lstm_recurrent"],
        "conv_flops": 3.0 * counts["conv"],
        "total_flops": float(profiler_flops) + 3.0 * (counts["lstm_input"] + counts["lstm_recurrent"] + counts["conv"]),
        "category_seconds": by_category,
        "op_seconds": dict(sorted(by_op.items(), key=lambda item: -item[1])[:15]),
    }


def measure_step(args) -> dict:
    """srcframework's BiDAF (train_throughput's `ours()`) on its batches: seconds a step, FLOPs a step."""
    import torch

    from train_throughput import training_setup

    torch.set_num_threads(args.step_threads)
    model, optimizer, tensors = training_setup("ours", args.batch_size, args.steps + args.warmup + 1, args.squad,
                                               args.exclude_from)
    times = []
    for step, batch in enumerate(tensors[:-1]):
        began = time.perf_counter()
        train_step(model, batch, optimizer)
        if step >= args.warmup:
            times.append(time.perf_counter() - began)
    # FLOPs of each timed batch (the profiled step itself is not timed)
    flops = [step_flops(model, batch, optimizer) for batch in tensors[args.warmup:-1]]
    total = {key: sum(f[key] for f in flops) for key in flops[0] if key.endswith("flops")}
    categories = {name: sum(f["category_seconds"][name] for f in flops) for name in CATEGORY_NAMES}
    ops = {}
    for f in flops:
        for name, value in f["op_seconds"].items():
            ops[name] = ops.get(name, 0.0) + value
    return {"threads": torch.get_num_threads(), "steps": len(times), "seconds": sum(times),
            "batch_size": args.batch_size, **total, "category_seconds": categories,
            "op_seconds": dict(sorted(ops.items(), key=lambda item: -item[1])[:10])}


def main() -> None:
    from train_throughput import DEFAULT_EXCLUDE, DEFAULT_SQUAD

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="torch thread counts of the peak")
    parser.add_argument("--repeats", type=int, default=5, help="timings of each product (best kept)")
    parser.add_argument("--seconds", type=float, default=0.3, help="about this long a timing")
    parser.add_argument("--steps", type=int, default=5, help="timed training steps")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=40)
    parser.add_argument("--step-threads", type=int, default=2, help="torch threads of the training step")
    parser.add_argument("--squad", default=DEFAULT_SQUAD, help="SQuAD file the batches come from")
    parser.add_argument("--exclude-from", default=DEFAULT_EXCLUDE, help="leave out these question ids ('' for none)")
    parser.add_argument("--quick", action="store_true",
                        help="brief: 2 timings of 0.02 s, 2 steps of 2 questions of the tiny fixture")
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--peak-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peak_child:
        print(json.dumps(peak_gflops(args.peak_child, args.repeats, args.seconds)))
        return
    if args.quick:
        args.repeats, args.seconds, args.steps, args.warmup, args.batch_size = 2, 0.02, 2, 1, 2
        args.squad, args.exclude_from = str(ROOT / "tests" / "fixtures" / "squad_tiny.json"), ""

    threads = sorted(set(args.threads) | {args.step_threads})
    peaks = {t: peak_in_fresh_process(t, args.repeats, args.seconds) for t in threads}
    print(f"float32 torch.mm GFLOP/s (best of {args.repeats}; each thread count in its own process; "
          f"{os.cpu_count()} CPUs seen)\n")
    print("| product | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in threads) + " |")
    print("|---|" + "---:|" * len(threads))
    for label in SHAPES:
        print(f"| {label} | " + " | ".join(f"{peaks[t][label]:.1f}" for t in threads) + " |")
    if 1 in peaks and 2 in peaks:
        print(f"2 threads / 1 thread on the large product: {peaks[2][LARGE] / peaks[1][LARGE]:.2f}x")

    step = measure_step(args)
    seconds = step["seconds"] / step["steps"]
    flops = step["total_flops"] / step["steps"]
    achieved = flops / seconds / 1e9
    rates = peaks[args.step_threads]
    reference_threads = 2 if 2 in peaks else max(peaks)
    large = peaks[reference_threads][LARGE]
    # each part of the step's FLOPs at the rate of the GEMM of its size (GFLOP/s -> FLOP/s)
    matched_seconds = (step["lstm_input_flops"] / rates[PROJECTION] + step["lstm_recurrent_flops"] / rates[RECURRENCE]
                       + step["conv_flops"] / rates[CHAR_CNN] + step["profiler_flops"] / rates[PROJECTION]) / 1e9
    matched_seconds /= step["steps"]
    per = lambda key: step[key] / step["steps"] / 1e9  # noqa: E731
    print(f"\nBiDAF training step (train_throughput's ours(), batch {step['batch_size']}, "
          f"{step['threads']} torch threads, {step['steps']} timed steps): {seconds:.3f} s a step\n")
    print("| FLOPs a step | GFLOP | counted by |\n|---|---:|---|")
    print(f"| matrix products and element-wise ops (linear, highway, similarity, attention, Adam) | "
          f"{per('profiler_flops'):.2f} | torch.profiler (with_flops) |")
    print(f"| LSTM input projections | {per('lstm_input_flops'):.2f} | formula: 2*4H*I*B a step and direction, x3 "
          f"for forward + backward |")
    print(f"| LSTM recurrences | {per('lstm_recurrent_flops'):.2f} | formula: 2*4H*H*B a step and direction, x3 |")
    print(f"| char CNN (conv1d) | {per('conv_flops'):.2f} | formula: 2*C_in*K*C_out*L_out*B, x3 |")
    print(f"| total | {per('total_flops'):.2f} | |")
    print(f"\nachieved: {achieved:.1f} GFLOP/s; {100 * achieved / large:.1f}% of peak (the {reference_threads}-thread "
          f"large-GEMM peak, {large:.1f} GFLOP/s, baseline); {100 * matched_seconds / seconds:.1f}% of the "
          f"size-matched peak ({flops / matched_seconds / 1e9:.1f} GFLOP/s at {args.step_threads} threads: "
          f"LSTM recurrences at the recurrence GEMM's rate, conv at the char-CNN GEMM's, the rest at the "
          f"input projection's)")

    total_cpu = sum(step["category_seconds"].values())
    print(f"\nprofile of a step by category (self CPU time of its ops, op names mapped to categories; the "
          f"optimizer: clipping + Adam): {total_cpu / step['steps']:.3f} s a profiled step\n")
    print("| category | % of step time |\n|---|---:|")
    for name in CATEGORY_NAMES:
        print(f"| {name} | {100 * step['category_seconds'][name] / max(total_cpu, 1e-9):.1f} |")
    print("\nlargest ops: " + ", ".join(f"{name} {100 * value / max(total_cpu, 1e-9):.1f}%"
                                        for name, value in list(step["op_seconds"].items())[:6]))
    if args.json:
        Path(args.json).write_text(json.dumps({
            "peaks": {str(t): value for t, value in peaks.items()}, "step": step, "achieved_gflops": achieved,
            "percent_of_large_peak": 100 * achieved / large,
            "percent_of_size_matched_peak": 100 * matched_seconds / seconds}, indent=1))


if __name__ == "__main__":
    main()
