"""A training beside other CPU-bound jobs: seconds a batch alone, then beside one and two jobs, by
torch threads and OpenMP wait policy, all in one run.

The training is `allennlp train` of a config (default training_configs/bidaf_cpu_scale.jsonnet) on
its first batches (no validation), each setup in a process of its own, timed over `--batches`
batches after `--warmup`. The other jobs are CPU-bound processes of one thread each (`--job
python`: a pure-Python loop, as a noise job is; `--job torch`: one-thread matrix products, as a
second training is), started before the training and stopped after it. The setups:

- `default`: torch's default (a thread a core), OpenMP's default wait policy, no `torch_threads`
  callback: the shipped configs before the callback;
- `one`: `OMP_NUM_THREADS=1`;
- `all`: `OMP_NUM_THREADS` = the cores;
- `all_passive`: the same with `OMP_WAIT_POLICY=PASSIVE` (OpenMP's idle threads sleep instead of
  spinning);
- `free`: the `torch_threads` callback without `threads` (the shipped configs now): the cores that
  other processes leave free, measured as the training goes.

It prints a table of seconds a batch with, for each, the ratio to the same setup alone and to
`default` alone, then the two figures the shipped default is held to: beside one job at most 2.5
times slower than alone, and alone no slower than before. On an otherwise idle machine
(`make bench-threads`, some 20 minutes on two cores):

    .venv/bin/python benchmarks/thread_sharing.py --json runs/thread_sharing.json

`--smoke` runs the tiny test fixture on three batches, `free` alone and beside one job (the tests
run it). docs/install.md ("Trainings that share the machine") gives the rule it supports.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
SETUPS = ("default", "one", "all", "all_passive", "free")
JOBS = {
    "python": "while True:\n    pass\n",
    "torch": "import torch\ntorch.set_num_threads(1)\na = torch.randn(384, 384)\nwhile True:\n    a = torch.tanh(a @ a)\n",
}
SHIPPED, BEFORE = "free", "default"


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def environment(setup: str) -> Dict[str, str]:
    """The training process's environment for `setup` (OpenMP reads it when torch is imported)."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "MKL_NUM_THREADS")}
    env["PYTHONUNBUFFERED"] = "1"
    if setup == "one":
        env["OMP_NUM_THREADS"] = "1"
    elif setup in ("all", "all_passive"):
        env["OMP_NUM_THREADS"] = str(cores())
    if setup == "all_passive":
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    return env


# --- the training, in a process of its own ---------------------------------------------------------


class Enough(Exception):
    """Raised by the timer once it has timed its batches: the training stops there."""


def training_config(config_path: str, setup: str, batches: int, limit_data: bool) -> dict:
    """The config with the timer among its callbacks, `torch_threads` as `setup` wants it, no
    validation, and (`limit_data`) only the instances the timed batches need."""
    from allennlp.common import Params

    config = Params.from_file(config_path).as_dict(quiet=True)
    trainer = config.setdefault("trainer", {})
    callbacks = [c for c in trainer.get("callbacks", []) if c.get("type") != "torch_threads"]
    if setup != BEFORE:
        callbacks.append({"type": "torch_threads"})  # OMP_NUM_THREADS, where set, fixes the number
    callbacks.append({"type": "thread_sharing_timer"})
    trainer["callbacks"] = callbacks
    trainer["num_epochs"] = max(trainer.get("num_epochs", 1), 1000)  # the timer stops it
    config["validation_data_path"] = None
    config.pop("validation_data_loader", None)
    trainer.pop("validation_metric", None)
    trainer.pop("patience", None)
    trainer.pop("learning_rate_scheduler", None)
    if limit_data:
        loader = config.get("data_loader", {})
        batch_size = loader.get("batch_sampler", loader).get("batch_size", 32)
        config["dataset_reader"]["max_instances"] = (batches + 1) * batch_size
        if isinstance(config.get("vocabulary"), dict) and isinstance(config["vocabulary"].get("reader"), dict):
            config["vocabulary"]["reader"]["max_instances"] = (batches + 1) * batch_size
    return config


def train_and_time(args) -> dict:
    """One setup's training in this process: seconds a batch (wall and this process's CPU) over
    the timed batches, and the threads torch used at the end."""
    import torch
    from allennlp.commands.train import train_model
    from allennlp.common import Params
    from allennlp.training.callbacks.callback import TrainerCallback

    import srcframework.allennlp_plugin  # noqa: F401  (as the allennlp command line: components, defaults)

    times: List[tuple] = []
    total = args.warmup + args.batches

    @TrainerCallback.register("thread_sharing_timer")
    class Timer(TrainerCallback):
        def on_start(self, trainer, is_primary: bool = True, **kwargs) -> None:
            times.append((time.perf_counter(), time.process_time()))

        def on_batch(self, trainer, batch_inputs, batch_outputs, batch_metrics, epoch, batch_number, is_training,
                     is_primary: bool = True, **kwargs) -> None:
            if not is_training:
                return
            times.append((time.perf_counter(), time.process_time()))
            timed = len(times) - 1 - args.warmup
            if timed >= args.batches or (timed >= 3 and times[-1][0] - times[args.warmup][0] > args.max_seconds):
                raise Enough()

    config = training_config(args.config, args.setup, total, limit_data=not args.smoke)
    with tempfile.TemporaryDirectory() as folder:
        try:
            train_model(Params(config), os.path.join(folder, "run"))
        except Exception as error:  # the timer's stop, wrapped or not
            seen, cause = set(), error
            while cause is not None and not isinstance(cause, Enough) and id(cause) not in seen:
                seen.add(id(cause))
                cause = cause.__cause__ or cause.__context__
            if not isinstance(cause, Enough):
                raise
    timed = len(times) - 1 - args.warmup
    if timed < 1:
        raise SystemExit(f"the training stopped after {len(times) - 1} batches; {total} were asked for")
    (wall0, cpu0), (wall1, cpu1) = times[args.warmup], times[-1]
    return {"batches": timed, "s_per_batch": (wall1 - wall0) / timed, "cpu_s_per_batch": (cpu1 - cpu0) / timed,
            "threads": torch.get_num_threads(), "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "default")}


# --- the runs -----------------------------------------------------------------------------------------


def run_setup(args, setup: str, others: int) -> dict:
    """`setup`'s training beside `others` CPU-bound jobs, each a process of this script's."""
    jobs = [subprocess.Popen([sys.executable, "-c", JOBS[args.job]], stdout=subprocess.DEVNULL)
            for _ in range(others)]
    try:
        command = [sys.executable, __file__, "--child", "--setup", setup, "--config", args.config,
                   "--batches", str(args.batches), "--warmup", str(args.warmup), "--max-seconds", str(args.max_seconds)]
        if args.smoke:
            command.append("--smoke")
        done = subprocess.run(command, cwd=ROOT, env=environment(setup), capture_output=True, text=True)
    finally:
        for job in jobs:
            job.kill()
            job.wait()
    if done.returncode != 0:
        raise SystemExit(f"{setup} beside {others} job(s) failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return dict(result, setup=setup, others=others)


def ratio(value: Optional[float], base: Optional[float]) -> str:
    return f"{value / base:.2f}" if value and base else "-"


def table(results: List[dict], others: List[int]) -> str:
    by = {(r["setup"], r["others"]): r for r in results}
    baseline = by.get((BEFORE, 0), {}).get("s_per_batch")
    header = ["setup", "threads"]
    for count in others:
        header.append("alone s/batch" if count == 0 else f"beside {count} s/batch")
    header += [f"beside {c} / alone" for c in others if c] + ["alone / default alone"]
    rows = [header]
    for setup in dict.fromkeys(r["setup"] for r in results):
        alone = by.get((setup, 0), {}).get("s_per_batch")
        threads = "/".join(str(by[(setup, c)]["threads"]) for c in others if (setup, c) in by)
        row = [setup, threads]
        row += [f"{by[(setup, c)]['s_per_batch']:.3f}" if (setup, c) in by else "-" for c in others]
        row += [ratio(by.get((setup, c), {}).get("s_per_batch"), alone) for c in others if c]
        row.append(ratio(alone, baseline))
        rows.append(row)
    widths = [max(len(row[k]) for row in rows) for k in range(len(header))]
    lines = ["| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def verdict(results: List[dict]) -> List[str]:
    by = {(r["setup"], r["others"]): r["s_per_batch"] for r in results}
    lines = []
    for name, setup in (("before", BEFORE), ("now", SHIPPED)):
        if (setup, 0) in by and (setup, 1) in by:
            lines.append(f"{name} ({setup}): beside one job {by[(setup, 1)] / by[(setup, 0)]:.2f}x the time a batch "
                         f"takes alone (at most 2.5 asked)")
    if (SHIPPED, 0) in by and (BEFORE, 0) in by:
        lines.append(f"alone, {SHIPPED} / {BEFORE}: {by[(SHIPPED, 0)] / by[(BEFORE, 0)]:.2f} (no slower than before: "
                     f"at most about 1)")
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default=str(ROOT / "training_configs" / "bidaf_cpu_scale.jsonnet"))
    parser.add_argument("--setups", default=",".join(SETUPS), help=f"comma-separated, of {', '.join(SETUPS)}")
    parser.add_argument("--others", default="0,1,2", help="numbers of CPU-bound jobs beside the training")
    parser.add_argument("--job", choices=sorted(JOBS), default="python", help="what each of those jobs runs")
    parser.add_argument("--batches", type=int, default=30, help="batches timed")
    parser.add_argument("--warmup", type=int, default=5, help="batches run before the timing starts")
    parser.add_argument("--max-seconds", type=float, default=180.0,
                        help="a setup's timing stops after this long (at least 3 batches timed)")
    parser.add_argument("--smoke", action="store_true",
                        help="the tiny test fixture, 1 + 2 batches, the free setup alone and beside one job")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--setup", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.smoke:
        args.config = str(ROOT / "tests" / "fixtures" / "bidaf_tiny.jsonnet")
        args.warmup, args.batches = 1, 2
        if args.setups == ",".join(SETUPS):
            args.setups = SHIPPED
        if args.others == "0,1,2":
            args.others = "0,1"
    if args.child:
        print(json.dumps(train_and_time(args)))
        return
    setups = [s for s in args.setups.split(",") if s]
    unknown = sorted(set(setups) - set(SETUPS))
    if unknown:
        parser.error(f"unknown setups {unknown}; choose from {', '.join(SETUPS)}")
    others = sorted({int(c) for c in args.others.split(",")})
    print(f"{Path(args.config).name}: {args.batches} batches timed after {args.warmup}, on {cores()} cores, beside "
          f"{', '.join(map(str, others))} CPU-bound job(s) ({args.job})", flush=True)
    results = []
    for setup in setups:
        for count in others:
            result = run_setup(args, setup, count)
            print(f"  {setup} beside {count}: {result['s_per_batch']:.3f} s/batch ({result['cpu_s_per_batch']:.3f} CPU s), "
                  f"{result['threads']} thread(s)", flush=True)
            results.append(result)
    print(table(results, others))
    for line in verdict(results):
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps({"config": args.config, "cores": cores(), "job": args.job,
                                               "batches": args.batches, "warmup": args.warmup, "runs": results},
                                              indent=2))


if __name__ == "__main__":
    main()
