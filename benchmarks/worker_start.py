"""How long a worker pool takes to start: workers forked from a fork server (what
`common.worker_pool` does) against spawned workers (the baseline, what it did before), side by side.

    .venv/bin/python benchmarks/worker_start.py [--workers 2] [--pools 3] [--repeats 2]

Each start method runs in a fresh process of its own that first imports what the `allennlp`
command line imports (`allennlp.commands` and the plugin), then opens `--pools` pools of
`--workers` workers one after the other (`worker_results`, the noise and transcription jobs'
pool), each over one task a worker that returns at once. It prints, for the first pool (the fork
server starts with it) and for each later one, the wall time until every result is back, and the
CPU seconds the pools' processes used in all (the workers and, for the fork server, the server
itself, read from /proc). Ratios are baseline / fork server. The methods alternate, `--repeats`
times.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _pid(_task):
    return os.getpid(), os.getppid()


def _server_cpu() -> float:
    """CPU seconds of the fork server and of the workers it has reaped (0 if none runs)."""
    from multiprocessing import forkserver

    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    if pid is None:
        return 0.0
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return sum(int(fields[k]) for k in (11, 12, 13, 14)) / os.sysconf("SC_CLK_TCK")


def child(method: str, workers: int, pools: int) -> dict:
    import multiprocessing

    import allennlp.commands  # noqa: F401  (what the command line has imported before any job)
    import srcframework.allennlp_plugin  # noqa: F401
    from srcframework.common import worker_pool

    if method == "spawn":
        worker_pool._context = lambda modules: multiprocessing.get_context("spawn")
    rows, parents = [], set()
    for _ in range(pools):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        server_before = _server_cpu()
        start = time.perf_counter()
        with worker_pool.worker_results(_pid, list(range(workers)), workers=workers) as results:
            pids = list(results)
        parents.update(parent for _, parent in pids)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) + (_server_cpu() - server_before)
        rows.append({"seconds": seconds, "cpu_seconds": cpu, "workers": len(set(pids))})
    # where the workers came from: this process (spawned) or the fork server (a TMPDIR too deep for
    # its socket gives spawned workers, and this comparison would be spawn against spawn)
    return {"method": method, "pools": rows, "forked": os.getpid() not in parents}


def run(method: str, workers: int, pools: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", method, "--workers", str(workers), "--pools", str(pools)],
        cwd=ROOT, env=dict(os.environ, OMP_NUM_THREADS="1"), capture_output=True, text=True,
    )
    if out.returncode != 0:
        sys.exit(f"the {method} run failed:\n{out.stderr[-3000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if result["forked"] != (method == "forkserver"):
        sys.exit(f"the {method} run's workers were {'forked' if result['forked'] else 'spawned'} "
                 "(a TMPDIR too deep for the fork server's socket?): no comparison")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pools", type=int, default=3, help="pools opened one after the other in one process")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--child", choices=["spawn", "forkserver"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.workers < 2 or args.pools < 1 or args.repeats < 1:
        parser.error("--workers must be at least 2 (one worker runs in the caller's process), --pools and --repeats at least 1")
    if args.child:
        print(json.dumps(child(args.child, args.workers, args.pools)))
        return
    results = {"spawn": [], "forkserver": []}
    for repeat in range(args.repeats):
        for method in ("spawn", "forkserver"):
            results[method].append(run(method, args.workers, args.pools))
            print(f"run {repeat + 1} {method}: " + ", ".join(
                f"pool {k + 1} {row['seconds']:.2f} s wall {row['cpu_seconds']:.2f} s CPU"
                for k, row in enumerate(results[method][-1]["pools"])), flush=True)

    def best(method: str, first: bool, key: str) -> float:
        values = [row[key] for r in results[method] for k, row in enumerate(r["pools"]) if (k == 0) == first]
        return min(values) if values else float("nan")

    print(f"\n{args.workers} workers a pool, best of {args.repeats} runs (later pools: best of all of them)")
    print(f"{'pool':<12} {'spawn s':>9} {'fork server s':>14} {'ratio':>7} {'spawn CPU s':>12} {'fork server CPU s':>18} {'ratio':>7}")
    for first, label in ((True, "first"), (False, "later")):
        if not first and args.pools < 2:
            continue
        s, f = best("spawn", first, "seconds"), best("forkserver", first, "seconds")
        sc, fc = best("spawn", first, "cpu_seconds"), best("forkserver", first, "cpu_seconds")
        print(f"{label:<12} {s:>9.2f} {f:>14.2f} {s / f:>7.2f} {sc:>12.2f} {fc:>18.2f} {sc / max(fc, 1e-3):>7.2f}")


if __name__ == "__main__":
    main()
