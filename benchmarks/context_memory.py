"""Peak memory of one question on a long context, in one process, by context length.

`benchmarks/growth.py` gives each size its own process and takes its peak RSS net of a start-up
run's peak; a small size's working set can fit inside memory the start-up had already touched, so
the net curve bends up at the small end. This measures inside one process instead: the archive is
loaded and warmed once, then, before each question, Linux's peak RSS (VmHWM) is reset to the
current RSS (`/proc/self/clear_refs` 5), and the peak above that rest is the question's.

    .venv/bin/python benchmarks/context_memory.py [--sizes 1000 4000 16000 64000] [--archive models/bidaf-quickstart.tar.gz]

The passage is the first N whitespace-separated words of the SQuAD v1.1 dev contexts, one after
another; the question is fixed. It prints MB above rest for each size and the least-squares
exponent of MB against size. Linux only.
"""
import argparse
import json
import math
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("SHARED_DATA", ROOT.parent / "shared" / "data"))


def status_mb(key: str) -> float:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(key):
                return int(line.split()[1]) / 1024
    raise SystemExit(f"context_memory: /proc/self/status has no {key} (Linux only)")


def exponent(sizes, values) -> float:
    xs, ys = [math.log(v) for v in sizes], [math.log(max(v, 1e-9)) for v in values]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000, 16000, 64000])
    parser.add_argument("--archive", default=str(ROOT / "models" / "bidaf-quickstart.tar.gz"))
    parser.add_argument("--squad", default=str(DATA / "squad" / "dev-v1.1.json"))
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    if len(args.sizes) < 2:
        raise SystemExit("context_memory: give at least two --sizes")
    if not os.path.isfile(args.squad):
        raise SystemExit(f"context_memory: no SQuAD file {args.squad}")
    sys.path.insert(0, str(ROOT))
    import srcframework  # noqa: F401
    from allennlp.predictors import Predictor

    predictor = Predictor.from_path(args.archive, "span_qa")
    data = json.loads(Path(args.squad).read_text(encoding="utf-8"))
    words = " ".join(p["context"] for a in data["data"] for p in a["paragraphs"]).split()
    if len(words) < max(args.sizes):
        raise SystemExit(f"context_memory: {args.squad} has {len(words)} words; --sizes asks for {max(args.sizes)}")
    question = "Which team won the game?"
    predictor.predict_json({"passage": " ".join(words[:200]), "question": question})  # warm
    rows = []
    for size in args.sizes:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        rest = status_mb("VmRSS:")
        predictor.predict_json({"passage": " ".join(words[:size]), "question": question})
        rows.append((size, status_mb("VmHWM:") - rest))
    print(f"one question, {os.path.basename(args.archive)}, in one process; peak RSS above the rest before it")
    print("| context words | MB above rest |\n|---:|---:|")
    for size, mb in rows:
        print(f"| {size:,} | {mb:.0f} |")
    fitted = exponent([s for s, _ in rows], [m for _, m in rows])
    print(f"exponent of memory against context length: {fitted:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "exponent": round(fitted, 3)}, indent=2) + "\n")


if __name__ == "__main__":
    main()
