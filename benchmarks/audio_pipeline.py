"""The spoken-question pipeline, stage by stage: loading, batching, and one training step of the
end-to-end SpeechT5 model against the text BiDAF baseline.

    .venv/bin/python benchmarks/audio_pipeline.py [--questions 128] [--steps 3] [--skip-memory]

1. Spoken test set: the first `--questions` questions of XQuAD-en, read by 4 voices in turn
   (flite kal16, awb, slt; eSpeak NG en-029) with `synthesize_questions` into
   `runs/bench/audio_set/first<N>` (resumable: a rerun reuses every WAV already there).
2. Loading: the `squad_src` reader of training_configs/lib/e2e.libsonnet reads that folder
   (read + resample + normalise each WAV, tokenise the contexts): seconds of audio loaded per wall
   second, and the same for the audio indexer alone.
3. Batching: AllenNLP's MultiProcessDataLoader (num_workers 0, instances cached, batch size 8) with
   the `bucket` batch sampler on `question` against the baseline of plain shuffled batches: seconds
   of audio batched per wall second and the share of padding samples (`padding_fraction`).
4. One training step (forward, backward, gradient clipping, Adam step) on 8 of these questions,
   each cut or zero-padded to exactly 5 s (80,000 samples), with their real contexts, for the
   baseline text BiDAF (question = the text question) and `span_qa` with the `speecht5` question
   encoder of e2e.libsonnet on a real-size SpeechT5 (transformers' SpeechT5Config() defaults, the
   speecht5_asr architecture: 12 encoder layers, width 768; randomly initialised, saved as a
   SpeechT5ForSpeechToText checkpoint, loaded as real weights would be), trained (with the feature
   encoder frozen, as the config does) and frozen (`freeze: true`), and the tiny SpeechT5 of
   tests/tiny_models.py. Each model runs in its own process (so does every other stage; this
   parent process imports neither torch nor srcframework, because a child inherits its parent's
   ru_maxrss): peak resident memory (ru_maxrss) of the child, and the part of it reached after
   the imports and after setting up the model and batch (SpeechT5's weights stay memory-mapped
   from the checkpoint file and count once a step touches them);
   the median wall and CPU seconds per step of `--steps` after one warm-up step. Ratios are e2e /
   text. All runs use 2 torch threads; on a busy machine compare CPU seconds.

Figures are printed and written to `--output` (default runs/bench/audio_pipeline.json).
"""
import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("SHARED_DATA", ROOT.parent / "shared" / "data"))
XQUAD = DATA / "xquad" / "xquad.en.json"
VOICES = ["flite:kal16", "flite:awb", "flite:slt", "espeak_ng:en-029"]
BATCH_SIZE = 8
SAMPLE_RATE = 16000
STEP_SAMPLES = 5 * SAMPLE_RATE
THREADS = 2
# the models of the training-step runs and their names in the table
MODELS = {
    "text": "text BiDAF (baseline)",
    "e2e": "e2e SpeechT5 real size",
    "e2e_frozen": "e2e SpeechT5 real size, frozen",
    "e2e_tiny": "e2e SpeechT5 tiny (tests/tiny_models.py)",
}


def libsonnet(expression: str) -> dict:
    """`expression` evaluated with `e2e` and `bidaf` (training_configs/lib) in scope."""
    import _jsonnet

    from srcframework import config_defaults

    snippet = "local e2e = import 'lib/e2e.libsonnet'; local bidaf = import 'lib/bidaf.libsonnet'; " + expression
    return json.loads(
        _jsonnet.evaluate_snippet(
            "audio_pipeline", snippet, jpathdir=[str(ROOT / "training_configs")], ext_vars=config_defaults.export()
        )
    )


def e2e_reader():
    from allennlp.common import Params
    from allennlp.data import DatasetReader

    return DatasetReader.from_params(Params(libsonnet("e2e.reader()")))


def make_audio_set(questions: int, folder: Path, workers: int) -> tuple:
    """The fid2qid file of the spoken test set in `folder`, made or completed now, and the
    synthesis summary."""
    from srcframework.jobs.synthesis import synthesize_questions

    summary = synthesize_questions(str(XQUAD), str(folder), voices=VOICES, split="dev", workers=workers, limit=questions)
    return folder / "fid2qid_dev.csv", summary


def measure_loading(fid2qid: Path) -> tuple:
    """Seconds of audio loaded per wall second by the `squad_src` reader, and by its audio indexer
    alone; the instances read."""
    reader = e2e_reader()
    start, cpu = time.perf_counter(), time.process_time()
    instances = list(reader.read(str(fid2qid)))
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    audio_seconds = sum(i["question"].duration for i in instances)
    start = time.perf_counter()
    for instance in instances:
        reader.audio_indexer.prepare(instance["metadata"]["audio"])
    indexer_seconds = time.perf_counter() - start
    figures = {
        "instances": len(instances),
        "audio_seconds": audio_seconds,
        "mean_question_seconds": audio_seconds / len(instances),
        "reader_wall_seconds": seconds,
        "reader_cpu_seconds": cpu,
        "reader_audio_seconds_per_second": audio_seconds / seconds,
        "indexer_audio_seconds_per_second": audio_seconds / indexer_seconds,
    }
    return figures, instances


def measure_batching(fid2qid: Path, vocab, epochs: int) -> dict:
    """Audio seconds batched per wall second and padding fraction, `bucket` against shuffled
    batches, over `epochs` passes of cached instances (after one pass that reads them)."""
    from allennlp.data.data_loaders import MultiProcessDataLoader
    from allennlp.data.samplers import BucketBatchSampler

    from srcframework.data.fields.audio_field import padding_fraction

    samplers = {
        "random": lambda: {"batch_size": BATCH_SIZE, "shuffle": True},
        "bucket": lambda: {"batch_sampler": BucketBatchSampler(batch_size=BATCH_SIZE, sorting_keys=["question"])},
    }
    figures = {}
    for name, sampler in samplers.items():
        random.seed(0)
        loader = MultiProcessDataLoader(e2e_reader(), str(fid2qid), quiet=True, **sampler())
        for _ in loader.iter_instances():  # read and cache the instances
            pass
        loader.index_with(vocab)
        batches, samples = [], 0
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(epochs):
            for batch in loader:
                lengths = batch["question"]["mask"].sum(-1).tolist()
                samples += sum(lengths)
                batches.append(lengths)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        figures[name] = {
            "batches": len(batches),
            "audio_seconds_per_second": samples / SAMPLE_RATE / seconds,
            "audio_seconds_per_cpu_second": samples / SAMPLE_RATE / cpu,
            "padding_fraction": padding_fraction(batches),
            "mean_padded_batch_seconds": sum(max(b) for b in batches) / len(batches) / SAMPLE_RATE,
        }
    return figures


def step_instances(fid2qid: Path, text: bool) -> list:
    """The first `BATCH_SIZE` questions of the set, each cut or zero-padded to exactly 5 s; with
    `text`, as the baseline's instances (the text question, tokenised by bidaf.reader())."""
    import itertools

    import numpy
    from allennlp.common import Params
    from allennlp.data import DatasetReader

    from srcframework.data.fields.audio_field import AudioField

    instances = list(itertools.islice(e2e_reader().read(str(fid2qid)), BATCH_SIZE))
    if len(instances) < BATCH_SIZE:
        raise ValueError(f"{fid2qid}: a training step needs {BATCH_SIZE} questions, the set holds {len(instances)}")
    if text:  # the question field the baseline's reader makes of the text question
        reader = DatasetReader.from_params(Params(libsonnet("bidaf.reader()")))
        for instance in instances:
            meta = instance["metadata"].metadata
            as_text = reader.text_to_instance(meta["question"], meta["context"], context_tokens=instance["context"].tokens)
            instance.fields["question"] = as_text["question"]
        return instances
    for instance in instances:
        waveform = instance["question"].waveform[:STEP_SAMPLES]
        waveform = numpy.pad(waveform, (0, STEP_SAMPLES - waveform.shape[0]))
        instance.fields["question"] = AudioField(waveform, SAMPLE_RATE, source=instance["question"].source)
    return instances


def write_real_speecht5(folder: Path) -> None:
    """A randomly initialised SpeechT5ForSpeechToText with SpeechT5Config() defaults (the
    microsoft/speecht5_asr architecture), saved into `folder`."""
    import torch
    from transformers import SpeechT5Config, SpeechT5ForSpeechToText

    torch.manual_seed(0)
    SpeechT5ForSpeechToText(SpeechT5Config()).save_pretrained(str(folder))


def write_tiny_speecht5(folder: Path) -> None:
    from tests.tiny_models import save_tiny_speecht5

    save_tiny_speecht5(folder)


def model_config(which: str, speech_model: str) -> dict:
    if which == "text":
        return libsonnet("bidaf.model()")
    return libsonnet(f"e2e.model({json.dumps(speech_model)}, freeze={'true' if which == 'e2e_frozen' else 'false'})")


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_step(which: str, fid2qid: Path, speech_model: str, steps: int) -> dict:
    """Set up `which` and time `steps` training steps after one warm-up; in a fresh process."""
    import torch
    from allennlp.common import Params
    from allennlp.data import Batch, Vocabulary
    from allennlp.models import Model

    import srcframework  # noqa: F401

    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
    after_import = rss_mb()
    instances = step_instances(fid2qid, text=which == "text")
    vocab = Vocabulary.from_instances(instances)
    model = Model.from_params(vocab=vocab, params=Params(model_config(which, speech_model)))
    batch = Batch(instances)
    batch.index_instances(vocab)
    tensors = batch.as_tensor_dict()
    parameters = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(parameters, lr=0.0005, betas=(0.9, 0.9))
    model.train()
    after_setup = rss_mb()
    times, cpu_times = [], []
    for _ in range(steps + 1):
        start, cpu = time.perf_counter(), time.process_time()
        optimizer.zero_grad()
        loss = model(**tensors)["loss"]
        loss.backward()
        torch.nn.utils.clip_grad_norm_(parameters, 5.0)
        optimizer.step()
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu)
    question = tensors["question"]
    return {
        "model": which,
        "question_shape": list((question["waveform"] if "waveform" in question else question["tokens"]["tokens"]).shape),
        "parameters_m": sum(p.numel() for p in model.parameters()) / 1e6,
        "trainable_parameters_m": sum(p.numel() for p in parameters) / 1e6,
        "seconds_per_step": statistics.median(times[1:]),
        "cpu_seconds_per_step": statistics.median(cpu_times[1:]),
        "step_seconds": times,
        "step_cpu_seconds": cpu_times,
        "loss": loss.item(),
        "rss_after_import_mb": after_import,
        "peak_rss_setup_mb": after_setup,
        "peak_rss_mb": rss_mb(),
        "threads": torch.get_num_threads(),
    }


def prepare(questions: int, audio_dir: str, workers: int, batching_epochs: int) -> dict:
    """Stages 1-3: the spoken set, loading and batching figures."""
    import torch
    from allennlp.data import Vocabulary

    import srcframework  # noqa: F401

    torch.set_num_threads(THREADS)
    fid2qid, summary = make_audio_set(questions, Path(audio_dir) / f"first{questions}", workers)
    loading, instances = measure_loading(fid2qid)
    batching = measure_batching(fid2qid, Vocabulary.from_instances(instances), batching_epochs)
    return {"fid2qid": str(fid2qid), "synthesis": summary, "loading": loading, "batching": batching}


def write_checkpoints(folder: str, tiny: bool) -> dict:
    """The real-size (and tiny) SpeechT5 checkpoints, written into `folder`: {name: path}."""
    import srcframework  # noqa: F401

    paths = {"real": Path(folder) / "speecht5"}
    write_real_speecht5(paths["real"])
    if tiny:
        paths["tiny"] = Path(folder) / "speecht5_tiny"
        write_tiny_speecht5(paths["tiny"])
    return {name: str(path) for name, path in paths.items()}


def vm_hwm_mb() -> float:
    """This process's peak resident memory as /proc/self/status reports it (VmHWM; reset by exec,
    unlike ru_maxrss), in MB; 0 where there is no /proc."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def child(mode: str, arguments: list, capture: bool = True) -> dict:
    """Runs this script in `mode` in a fresh process and returns the dict it writes. The parent
    imports neither torch nor srcframework, so the peak resident memory (ru_maxrss, which a child
    inherits from its parent across fork and exec) that a child reports is its own."""
    with tempfile.TemporaryDirectory() as tmp:
        result = Path(tmp) / "result.json"
        cmd = [sys.executable, __file__, "--child", mode, "--result", str(result), *arguments]
        done = subprocess.run(cmd, capture_output=capture, text=True, cwd=ROOT)
        if done.returncode != 0:
            sys.exit(f"{mode} run failed" + (f":\n{done.stderr[-3000:]}" if capture else ""))
        return json.loads(result.read_text())


def run_child(args) -> None:
    if args.child == "prepare":
        result = prepare(args.questions, args.audio_dir, args.workers, args.batching_epochs)
    elif args.child == "checkpoints":
        result = write_checkpoints(args.models_dir, not args.no_tiny)
    else:
        result = run_step(args.child, Path(args.fid2qid), args.speech_model, args.steps)
        result["vm_hwm_mb"] = vm_hwm_mb()
    Path(args.result).write_text(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=128, help="XQuAD-en questions in the spoken set")
    parser.add_argument("--steps", type=int, default=3, help="timed training steps per model (after one warm-up)")
    parser.add_argument("--skip-memory", action="store_true", help="skip the training-step memory and time runs")
    parser.add_argument("--no-tiny", action="store_true", help="leave out the tiny SpeechT5 run")
    parser.add_argument("--batching-epochs", type=int, default=3, help="timed passes over the set per batching")
    parser.add_argument("--workers", type=int, default=1, help="synthesis processes")
    parser.add_argument("--audio-dir", default=str(ROOT / "runs" / "bench" / "audio_set"))
    parser.add_argument("--output", default=str(ROOT / "runs" / "bench" / "audio_pipeline.json"))
    parser.add_argument("--child", choices=["prepare", "checkpoints", *MODELS], help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    parser.add_argument("--fid2qid", help=argparse.SUPPRESS)
    parser.add_argument("--speech-model", default="", help=argparse.SUPPRESS)
    parser.add_argument("--models-dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_child(args)
        return
    if args.questions < BATCH_SIZE:
        parser.error(f"--questions must be at least {BATCH_SIZE}")
    if args.steps < 1:
        parser.error("--steps must be at least 1")
    figures = {"questions": args.questions, "voices": VOICES, "batch_size": BATCH_SIZE, "threads": THREADS}

    prepared = child("prepare", ["--questions", str(args.questions), "--audio-dir", args.audio_dir,
                                 "--workers", str(args.workers), "--batching-epochs", str(args.batching_epochs)],
                     capture=False)
    fid2qid, summary = prepared.pop("fid2qid"), prepared["synthesis"]
    figures.update(prepared)
    print(f"spoken set: {summary['questions']} questions, {summary['total_audio_seconds']:.0f} s of audio in "
          f"{Path(fid2qid).parent} ({summary['synthesized_now']} synthesized now, {summary['reused']} reused)")

    loading = prepared["loading"]
    print(f"\nloading (squad_src reader): {loading['instances']} questions, {loading['audio_seconds']:.0f} s of audio "
          f"(mean {loading['mean_question_seconds']:.2f} s) in {loading['reader_wall_seconds']:.2f} s: "
          f"{loading['reader_audio_seconds_per_second']:.0f} audio s/s; audio indexer alone "
          f"{loading['indexer_audio_seconds_per_second']:.0f} audio s/s")

    bucket, plain = prepared["batching"]["bucket"], prepared["batching"]["random"]
    print(f"\nbatching: MultiProcessDataLoader, batch {BATCH_SIZE}, num_workers 0, {args.batching_epochs} passes "
          f"(baseline: shuffled batches)")
    print("| batches | audio s batched / s | per CPU s | padding fraction |\n|---|---:|---:|---:|")
    for name, row in (("shuffled (baseline)", plain), ("bucket on question", bucket)):
        print(f"| {name} | {row['audio_seconds_per_second']:.0f} | {row['audio_seconds_per_cpu_second']:.0f} | "
              f"{row['padding_fraction']:.3f} |")
    ratios = {
        "batching_speed_bucket_over_random": bucket["audio_seconds_per_second"] / plain["audio_seconds_per_second"],
        "padding_bucket_over_random": (
            bucket["padding_fraction"] / plain["padding_fraction"] if plain["padding_fraction"] else None
        ),
    }
    padding_ratio = ratios["padding_bucket_over_random"]
    print(f"ratio bucket/shuffled: speed {ratios['batching_speed_bucket_over_random']:.2f}, padding "
          f"{'n/a' if padding_ratio is None else f'{padding_ratio:.2f}'}", flush=True)

    if not args.skip_memory:
        runs = {}
        with tempfile.TemporaryDirectory() as tmp:
            checkpoints = child("checkpoints", ["--models-dir", tmp] + (["--no-tiny"] if args.no_tiny else []))
            plan = [("text", ""), ("e2e", checkpoints["real"]), ("e2e_frozen", checkpoints["real"])]
            if "tiny" in checkpoints:
                plan.append(("e2e_tiny", checkpoints["tiny"]))
            for which, speech_model in plan:
                runs[which] = child(which, ["--fid2qid", fid2qid, "--speech-model", speech_model, "--steps", str(args.steps)])
                print(f"{which}: {runs[which]['seconds_per_step']:.2f} s/step, peak RSS {runs[which]['peak_rss_mb']:.0f} MB",
                      flush=True)
        figures["training_step"] = runs
        print(f"\none training step (forward, backward, Adam), batch of {BATCH_SIZE} questions of 5.0 s "
              f"(text: the same questions as text), their XQuAD contexts; median of {args.steps} after 1 warm-up; "
              f"{runs['text']['threads']} threads; baseline: text BiDAF")
        print("| model | params M (trainable) | s/step | CPU s/step | peak RSS MB | after imports | after setup |\n"
              "|---|---:|---:|---:|---:|---:|---:|")
        for which, run in runs.items():
            print(f"| {MODELS[which]} | {run['parameters_m']:.1f} ({run['trainable_parameters_m']:.1f}) | "
                  f"{run['seconds_per_step']:.2f} | {run['cpu_seconds_per_step']:.2f} | {run['peak_rss_mb']:.0f} | "
                  f"{run['rss_after_import_mb']:.0f} | {run['peak_rss_setup_mb']:.0f} |")
        print("(SpeechT5 weights are memory-mapped from the checkpoint: they count in RSS once a step reads them)")
        text = runs["text"]
        for which in [w for w in runs if w != "text"]:
            ratios[f"time_{which}_over_text"] = runs[which]["seconds_per_step"] / text["seconds_per_step"]
            ratios[f"cpu_time_{which}_over_text"] = runs[which]["cpu_seconds_per_step"] / text["cpu_seconds_per_step"]
            ratios[f"memory_{which}_over_text"] = runs[which]["peak_rss_mb"] / text["peak_rss_mb"]
            print(f"ratio {which}/text: time {ratios[f'time_{which}_over_text']:.1f} "
                  f"(CPU time {ratios[f'cpu_time_{which}_over_text']:.1f}), "
                  f"peak memory {ratios[f'memory_{which}_over_text']:.2f}")
    figures["ratios"] = ratios
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(figures, indent=1))
    print(f"\nwrote {args.output}")


if __name__ == "__main__":
    main()
