"""How the cost of the main jobs grows with their size: each job at 4 sizes, each size in its own
process, the wall time and peak resident memory of that process (`os.wait4`), and the fitted
exponent of each (the least-squares slope of log time, and of log peak RSS, against log size). An
exponent above 1.1 is flagged: the job grows faster than its input.

Jobs:

- `evaluate`: `allennlp evaluate` of a BiDAF archive (srcframework's BiDAF built as
  `benchmarks/train_throughput.py`'s `ours()` builds it, random weights of seed 0, archived with
  allennlp's archival code in a temporary folder) on the first 250, 500, 1,000 and 2,000 questions
  of SQuAD v1.1 dev;
- `context`: the same archive's `allennlp evaluate` of one question on a context of 1k, 4k, 16k and
  64k tokens (SQuAD dev paragraphs concatenated, cut to the token; the archive's reader has no
  `passage_length_limit`, so nothing is cut; one row, so no length groups);
- `noise`: `allennlp noise --noise keyboard` on the first 250 to 2,000 questions;
- `compare`: `allennlp compare` of a study of 2, 4, 8 and 16 model/test-set pairs (N/2 models, each
  the quickstart archive `models/bidaf-quickstart.tar.gz`, on a clean set of `--compare-questions`
  questions and its keyboard copy).

Raw figures are the whole process's; net figures subtract a start-up run of the same job at its
smallest (one question; a context of one paragraph; `allennlp compare --help`, the imports), which
holds the interpreter start, the imports and the model load; "inside main" is the time the process
spent in allennlp's `main` after its imports and plugins (model load included). The exponent is
about the work's growth, so all are printed; the net and inside-main exponents say how the work
grows where the start-up dominates the raw time. The two end points also give the time per unit
and the fixed time.

    .venv/bin/python benchmarks/growth.py [--jobs evaluate context noise compare] [--sizes N N N N] [--json FILE]

`--quick` runs every job at two tiny sizes (the test), each size and start-up run in a child forked from
one process that made allennlp's imports once (evaluate_predict.py's `ForkServer`) rather than in a fresh
interpreter: raw figures and start-up runs then hold no interpreter start and no imports. `--sizes` sets
the sizes of every job chosen.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from evaluate_predict import ForkServer, questions_of  # noqa: E402

DATA = Path(os.environ.get("SHARED_DATA", ROOT.parent / "shared" / "data"))
SQUAD_DEV = DATA / "squad" / "dev-v1.1.json"
QUICKSTART = ROOT / "models" / "bidaf-quickstart.tar.gz"


def allennlp(*arguments, timing: Path):
    """`allennlp ARGUMENTS` run through this script's driver, which also writes the seconds spent in
    allennlp's `main` after the imports and plugins (the time inside the process) to `timing`."""
    return [sys.executable, __file__, "--driver", str(timing), "--", *map(str, arguments)]


def driver(timing: str, arguments) -> None:
    from allennlp.commands import main as allennlp_main
    from allennlp.common.plugins import import_plugins

    import_plugins()
    sys.argv = ["allennlp", *arguments]
    began = time.perf_counter()
    try:
        allennlp_main(prog="allennlp")
    except SystemExit as stop:
        if stop.code not in (0, None):
            raise
    Path(timing).write_text(json.dumps({"seconds": time.perf_counter() - began}))

JOBS = {  # name -> (default sizes, quick sizes, unit)
    "evaluate": ([250, 500, 1000, 2000], [4, 8], "questions"),
    "context": ([1000, 4000, 16000, 64000], [300, 600], "context tokens"),
    "noise": ([250, 500, 1000, 2000], [4, 8], "questions"),
    "compare": ([2, 4, 8, 16], [2, 4], "pairs"),
}
FLAG = 1.1


def run_measured(command, log: Path, server: ForkServer = None) -> dict:
    """Runs `command` (stdout and stderr to `log`), in a fresh process or in a child forked by
    `server` (--quick), and returns its wall seconds, peak RSS (MB), the latter from this child's own
    rusage (`os.wait4`), and the seconds inside `allennlp`'s main."""
    if server is not None:
        done = server.run(command, log)
        returncode, seconds, peak_mb = done["returncode"], done["seconds"], done["peak_rss_mb"]
    else:
        with open(log, "w") as out:
            began = time.perf_counter()
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
            _, status, usage = os.wait4(process.pid, 0)
            seconds = time.perf_counter() - began
        returncode, peak_mb = os.waitstatus_to_exitcode(status), usage.ru_maxrss / 1024
    if returncode != 0:
        tail = log.read_text(errors="replace")[-3000:]
        raise SystemExit(f"{' '.join(map(str, command))} failed (exit {returncode}):\n{tail}")
    timing = Path(command[command.index("--driver") + 1])
    inside = json.loads(timing.read_text())["seconds"]
    return {"seconds": seconds, "peak_mb": peak_mb, "inside_seconds": inside}


def exponent(sizes, values):
    """Least-squares slope of log(value) against log(size); None with fewer than two positive values."""
    points = [(math.log(s), math.log(v)) for s, v in zip(sizes, values) if v is not None and v > 0]
    if len(points) < 2:
        return None
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    sxx = sum((x - mx) ** 2 for x, _ in points)
    if sxx == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in points) / sxx


# ---------------------------------------------------------------- inputs

def load_dev() -> dict:
    return json.loads(SQUAD_DEV.read_text(encoding="utf-8"))


def first_questions(data: dict, count: int) -> dict:
    """A SQuAD file of the first `count` questions of `data` (their paragraphs and articles)."""
    subset = questions_of(data, count)
    if sum(len(p["qas"]) for a in subset["data"] for p in a["paragraphs"]) < count:
        raise SystemExit(f"{SQUAD_DEV} has fewer than {count} questions")
    return subset


def long_context(data: dict, tokens: int) -> dict:
    """One question (the first of the first paragraph) on a context of exactly `tokens` tokens of
    the reader's tokenizer: SQuAD dev paragraphs concatenated and cut after the last token."""
    from srcframework.data.dataset_readers.squad import SquadReader

    tokenizer = SquadReader()
    first = data["data"][0]["paragraphs"][0]
    pieces, words = [], 0
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            pieces.append(paragraph["context"])
            words += len(paragraph["context"].split())
            if words > tokens:
                break
        if words > tokens:
            break
    text = " ".join(pieces)
    found = tokenizer.tokenize_context(text)
    if len(found) < tokens:
        raise SystemExit(f"SQuAD dev holds fewer than {tokens} tokens")
    last = found[tokens - 1]
    text = text[: last.idx + len(last.text)]
    qa = dict(first["qas"][0], id="long-context")
    return {"version": "1.1", "data": [{"title": "long", "paragraphs": [{"context": text, "qas": [qa]}]}]}


def reader_config() -> dict:
    """The BiDAF reader of training_configs/lib/bidaf.libsonnet, with no passage_length_limit."""
    return {
        "type": "squad_v1",
        "token_indexers": {
            "tokens": {"type": "single_id", "lowercase_tokens": True},
            "token_characters": {"type": "characters", "min_padding_length": 5},
        },
        "passage_length_limit": None,
        "question_length_limit": 50,
    }


def build_archive(folder: Path, vocabulary_source: Path) -> Path:
    """model.tar.gz of srcframework's BiDAF (train_throughput's `ours()`), random weights of seed 0,
    its vocabulary from `vocabulary_source`, written with allennlp's archival code."""
    import _jsonnet
    import torch
    from allennlp.common import Params
    from allennlp.data import DatasetReader, Vocabulary
    from allennlp.models.archival import archive_model

    from srcframework import config_defaults
    from train_throughput import ours

    reader = DatasetReader.from_params(Params(reader_config()))
    instances = list(reader.read(str(vocabulary_source)))
    _, build = ours([])
    vocab = Vocabulary.from_instances(instances)
    torch.manual_seed(0)
    model = build(vocab)
    config = json.loads(_jsonnet.evaluate_file(str(ROOT / "training_configs/bidaf_cpu_scale.jsonnet"),
                                               ext_vars=config_defaults.export()))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps({
        "dataset_reader": reader_config(),
        "train_data_path": str(vocabulary_source),
        "model": config["model"],
        "data_loader": {"batch_sampler": {"type": "bucket", "batch_size": 40, "sorting_keys": ["context"]}},
        "trainer": {"num_epochs": 1, "optimizer": {"type": "adam"}},
    }))
    vocab.save_to_files(str(folder / "vocabulary"))
    torch.save(model.state_dict(), folder / "weights.th")
    archive_model(str(folder), weights="weights.th")
    return folder / "model.tar.gz"


def study(folder: Path, pairs: int, clean: Path, keyboard: Path) -> Path:
    """A study of `pairs` model/test-set pairs: pairs/2 names for the quickstart archive, each on the
    clean set and its keyboard copy."""
    models = {f"m{k}": {"archive": str(QUICKSTART), "batch_size": 20} for k in range(max(1, pairs // 2))}
    sets = {
        "clean": {"data": str(clean), "interface": "clean", "kind": "natural"},
        "keyboard": {"data": str(keyboard), "original": str(clean), "interface": "keyboard", "kind": "synthetic",
                     "generator": "keyboard"},
    }
    path = folder / f"study_{pairs}.json"
    path.write_text(json.dumps({"models": models, "test_sets": sets}))
    return path


# ---------------------------------------------------------------- jobs

class Job:
    """Makes the inputs of one job and the command of each size (and of its start-up run)."""

    def __init__(self, name: str, tmp: Path, sizes, quick: bool, compare_questions: int):
        self.name, self.tmp, self.sizes, self.quick = name, tmp, sizes, quick
        self.compare_questions = compare_questions
        self.folder = tmp / name
        self.folder.mkdir()

    def prepare(self, dev: dict, archive) -> None:
        self.archive = archive
        if self.name in ("evaluate", "noise"):
            for size in [1] + list(self.sizes):
                (self.folder / f"q{size}.json").write_text(json.dumps(first_questions(dev, size)))
        elif self.name == "context":
            (self.folder / "c0.json").write_text(json.dumps(first_questions(dev, 1)))
            for size in self.sizes:
                (self.folder / f"c{size}.json").write_text(json.dumps(long_context(dev, size)))
        elif self.name == "compare":
            from srcframework.jobs.challenge_set import make_challenge_set

            clean = self.folder / "clean.json"
            clean.write_text(json.dumps(first_questions(dev, self.compare_questions)))
            keyboard = self.folder / "keyboard.json"
            make_challenge_set(str(clean), str(keyboard), {"type": "keyboard"}, seed=0, progress=False)
            self.studies = {size: study(self.folder, size, clean, keyboard) for size in self.sizes}

    def command(self, size):
        """The command of `size`; size None is the start-up run."""
        out = self.folder / f"out_{size}"
        timing = self.folder / f"timing_{size}.json"
        if self.name == "evaluate":
            data = self.folder / f"q{size or 1}.json"
            return allennlp("evaluate", self.archive, data, "--output-file", f"{out}.json", "--cuda-device", "-1",
                            timing=timing)
        if self.name == "context":
            data = self.folder / f"c{size or 0}.json"
            return allennlp("evaluate", self.archive, data, "--output-file", f"{out}.json", "--cuda-device", "-1",
                            timing=timing)
        if self.name == "noise":
            data = self.folder / f"q{size or 1}.json"
            return allennlp("noise", data, f"{out}.json", "--noise", "keyboard", "--no-progress", timing=timing)
        if size is None:
            return allennlp("compare", "--help", timing=timing)
        statistics = ["--bootstrap", "20", "--permutations", "20"] if self.quick else []
        return allennlp("compare", self.studies[size], "-o", out, "--no-progress", *statistics, timing=timing)


def measure(job: Job, server: ForkServer = None) -> dict:
    startup = run_measured(job.command(None), job.folder / "startup.log", server)
    rows = []
    for size in job.sizes:
        raw = run_measured(job.command(size), job.folder / f"size_{size}.log", server)
        rows.append({"size": size, **raw, "net_seconds": raw["seconds"] - startup["seconds"],
                     "net_mb": raw["peak_mb"] - startup["peak_mb"]})
        print(f"  {job.name} {size}: {raw['seconds']:.2f} s, {raw['peak_mb']:.0f} MB", file=sys.stderr, flush=True)
    sizes = [row["size"] for row in rows]
    fits = {
        "time_raw": exponent(sizes, [row["seconds"] for row in rows]),
        "time_net": exponent(sizes, [row["net_seconds"] for row in rows]),
        "time_inside": exponent(sizes, [row["inside_seconds"] for row in rows]),
        "memory_raw": exponent(sizes, [row["peak_mb"] for row in rows]),
        "memory_net": exponent(sizes, [row["net_mb"] for row in rows]),
    }
    return {"job": job.name, "startup": startup, "rows": rows, "exponents": fits}


def shown(value) -> str:
    if value is None:
        return "n/a"
    return f"{value:.2f}" + (" (ABOVE 1.1)" if value > FLAG else "")


def report(result: dict, unit: str) -> None:
    startup = result["startup"]
    rows = result["rows"]
    share = startup["seconds"] / rows[0]["seconds"]
    print(f"\n{result['job']} (baseline: its start-up run, {startup['seconds']:.2f} s, {startup['peak_mb']:.0f} MB "
          f"peak RSS; {100 * share:.0f}% of the smallest size's time"
          f"{': it dominates, read the net figures' if share > 0.5 else ''})\n")
    print(f"| {unit} | raw s | net s | s inside allennlp main | net ms per unit | peak RSS MB | net MB |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['size']:,} | {row['seconds']:.2f} | {row['net_seconds']:.2f} | {row['inside_seconds']:.2f} | "
              f"{1000 * row['net_seconds'] / row['size']:.2f} | {row['peak_mb']:.0f} | {row['net_mb']:.0f} |")
    fits = result["exponents"]
    print(f"exponent {result['job']} time: raw {shown(fits['time_raw'])}, net {shown(fits['time_net'])}, "
          f"inside main {shown(fits['time_inside'])}")
    print(f"exponent {result['job']} memory: raw {shown(fits['memory_raw'])}, net {shown(fits['memory_net'])}")
    if len(rows) >= 2:
        first, last = rows[0], rows[-1]
        per = (last["seconds"] - first["seconds"]) / (last["size"] - first["size"])
        print(f"from the two end points: {1000 * per:.2f} ms per unit, "
              f"{first['seconds'] - per * first['size']:.2f} s fixed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", nargs="+", choices=list(JOBS), default=list(JOBS))
    parser.add_argument("--sizes", type=int, nargs="+", help="sizes of every job chosen (default: each job's 4)")
    parser.add_argument("--quick", action="store_true",
                        help="every job at two tiny sizes, each run forked from one process that made the imports")
    parser.add_argument("--compare-questions", type=int, default=40, help="questions of each set of a study")
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--driver", help=argparse.SUPPRESS)
    parser.add_argument("arguments", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.driver:
        driver(args.driver, args.arguments)
        return
    if args.quick and args.compare_questions == 40:
        args.compare_questions = 6

    # --quick: forked now, before any work, so that each run's child starts from the imports alone
    server = ForkServer.fork() if args.quick else None
    try:
        results = run_jobs(args, server)
    finally:
        if server is not None:
            server.close()
    flagged = [f"{r['job']} {kind.replace('_', ' ')}" for r in results for kind, value in r["exponents"].items()
               if not kind.endswith("raw") and value is not None and value > FLAG]
    print(f"\nnet and inside-main exponents above {FLAG}: {', '.join(flagged) if flagged else 'none'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results}, indent=1))


def run_jobs(args, server: ForkServer = None) -> list:
    import torch

    with tempfile.TemporaryDirectory(prefix="growth-") as name:
        tmp = Path(name)
        dev = load_dev()
        jobs = [Job(job, tmp, args.sizes or JOBS[job][1 if args.quick else 0], args.quick, args.compare_questions)
                for job in args.jobs]
        archive = None
        if {"evaluate", "context"} & set(args.jobs):
            largest = max(max(job.sizes) for job in jobs if job.name == "evaluate") if "evaluate" in args.jobs else 1
            source = tmp / "vocabulary_source.json"
            source.write_text(json.dumps(first_questions(dev, largest)))
            archive = build_archive(tmp / "archive", source)
        for job in jobs:
            job.prepare(dev, archive)
        forked = " (forked from one that made the imports: no interpreter start or imports)" if server else ""
        print(f"each size in its own process{forked}; wall time and peak RSS of that process; OMP_NUM_THREADS="
              f"{os.environ.get('OMP_NUM_THREADS', 'unset')}, {os.cpu_count()} CPUs; torch {torch.__version__}")
        print("exponent: least-squares slope of log figure against log size; raw: the whole process, net: minus "
              f"the job's start-up run ({'model load' if server else 'interpreter, imports, model load'})")
        results = []
        for job in jobs:
            result = measure(job, server)
            results.append(result)
            report(result, JOBS[job.name][2])
    return results


if __name__ == "__main__":
    main()
