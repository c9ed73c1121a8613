"""Training-step time of the small CTC SpeechT5 (recipes/e2e_cpu/speecht5_ctc_pretrain.jsonnet) on
synthesized spoken questions: the setups of earlier days and the current one side by side, on the
same batches, and the pass (epoch) time each projects.

The first `--questions` questions of a SQuAD file are read aloud by three flite voices (flite
kal16, awb, slt, dealt in turn; the synthesis job, into a temporary folder unless `--src` names a
SQuAD-SRC-layout folder, which a rerun reuses), grouped by duration into batches of the config's
size, and each setup of `--setups` takes `--warmup` + `--batches` training steps on them. A step
is what the training does for a batch: its recordings read from disk by the setup's `squad_src`
reader (decoding, normalisation and, where the setup perturbs in the reader, SoX on each
utterance, drawn for the batch's number as the epoch, so every perturbing setup reads the same
audio), the batch's tensors, forward, CTC loss, backward, gradient clipping, Adam. CPU time counts
this process's threads and its finished child processes (SoX). The setups run interleaved, batch
by batch, in an order that rotates with the batch, so a change in the machine's load falls on all
of them alike.

Setups:
  baseline  the setup of 2026-11-30 that docs/benchmarks.md recorded at 0.98 s a batch (2 idle
            cores): the model settings of that day (BASELINE_MODEL, with its own speed and volume
            perturbation), its convolutional feature encoder run one utterance at a time
            (`convolve_per_utterance`, as the network did then), recordings read unperturbed one
            at a time, `--threads` threads (2 by default, torch's default here)
  serial    the config of 2026-12-02 (29 min a pass on 2 idle cores with 2 threads): the
            config's model (`convolve_batched`), its training reader's SoX perturbation, the
            recordings read and perturbed one at a time (`loading_threads: 1`), the threads of
            the config's `torch_threads` callback
  current   the config as it is: the same with the training reader's `loading_threads`
  NAME@N    a setup above with N torch threads (e.g. current@2, serial@2, baseline@1)
  NAME+bf16 a setup above whose forward pass runs under torch.autocast with bfloat16 (the
            convolutions and matmuls in bfloat16, the normalisations and the CTC loss in
            float32), e.g. current@2+bf16: a change of training numerics, measured here only

For each setup it prints wall and CPU seconds per batch, utterances and audio seconds per wall
second, the pass of `--epoch-utterances` projected from wall time, and the ratios baseline / setup
and serial / setup of wall and of CPU time per batch (above 1: faster; against the baseline or
serial setup of the same torch threads where the run has one). The CPU ratio, measured
interleaved, is the fairer figure on a machine that other jobs load: wall time counts the time
the scheduler gives to them. Reading in threads saves wall time, not CPU time (SoX's start-up and
pipes wait; on two cores the recordings decode and perturb side by side), so its gain shows in
the wall ratio, most on idle cores. The load average before and after is printed with the
figures. `--profile` adds the operators with the most CPU time, per setup, over the measured
steps (torch.profiler; the times then include its overhead).

    .venv/bin/python benchmarks/speecht5_ctc_step.py --src /tmp/ctc_bench_src --questions 160 --batches 8 \
        --setups serial@2,current@2
"""
import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("SHARED_DATA", ROOT.parent / "shared" / "data"))
VOICES = "flite:kal16,flite:awb,flite:slt"

# the `model` of recipes/e2e_cpu/speecht5_ctc_pretrain.jsonnet on 2026-11-30 (the baseline's)
BASELINE_MODEL = {
    "type": "speecht5_ctc",
    "encoder": {
        "hidden_size": 144,
        "encoder_layers": 3,
        "encoder_attention_heads": 4,
        "encoder_ffn_dim": 576,
        "conv_dim": [32, 64, 96, 144],
        "conv_kernel": [10, 8, 4, 6],
        "conv_stride": [5, 4, 4, 6],
        "num_conv_pos_embeddings": 32,
        "num_conv_pos_embedding_groups": 8,
        "feat_extract_norm": "group",
        "hidden_dropout": 0.1,
        "attention_dropout": 0.1,
        "activation_dropout": 0.1,
        "feat_proj_dropout": 0.0,
        "encoder_layerdrop": 0.0,
        "apply_spec_augment": True,
        "mask_time_prob": 0.05,
        "mask_time_length": 5,
    },
    "speed_perturbation": [0.9, 1.1],
    "volume_perturbation_db": [-6.0, 6.0],
    "seed": 13,
}


def load_config(path: str) -> dict:
    import _jsonnet

    from srcframework import config_defaults

    return json.loads(_jsonnet.evaluate_file(path, ext_vars=config_defaults.export()))


def config_threads(config: dict):
    """The `threads` of the config's `torch_threads` trainer callback, or None."""
    for callback in config.get("trainer", {}).get("callbacks", []):
        if callback.get("type") == "torch_threads":
            return int(callback["threads"])
    return None


def make_reader(reader_params: dict, **changes):
    """The `squad_src` reader of `reader_params` (its `squad_file` dropped: the folder's own is read)."""
    from allennlp.common import Params
    from allennlp.data import DatasetReader

    params = {key: value for key, value in reader_params.items() if key != "squad_file"}
    params.update(changes)
    return DatasetReader.from_params(Params(params))


def batch_files(src: str, reader_params: dict, batch_size: int, count: int, folder: str):
    """`count` (fid2qid file, utterances, seconds of audio) in `folder` (beside links to the
    recordings, questions and speakers of `src`), each file listing `batch_size` recordings of
    similar duration, in a seeded order."""
    from srcframework.data.squad_src_layout import write_fid2qid

    instances = list(make_reader(reader_params).read(os.path.join(src, "fid2qid_dev.csv")))
    instances.sort(key=lambda i: i["metadata"]["duration"])
    batches = [instances[k : k + batch_size] for k in range(0, len(instances) - batch_size + 1, batch_size)]
    if len(batches) < count:
        raise SystemExit(f"{len(instances)} utterances give {len(batches)} batches of {batch_size}; {count} are needed "
                         f"(more --questions, or a new --src folder)")
    random.Random(13).shuffle(batches)
    for name in ("wavs", "squad.json", "squad_dev.json", "speakers.tsv"):
        if os.path.exists(os.path.join(src, name)):
            os.symlink(os.path.abspath(os.path.join(src, name)), os.path.join(folder, name))
    if not os.path.exists(os.path.join(folder, "squad.json")):
        os.symlink("squad_dev.json", os.path.join(folder, "squad.json"))
    files = []
    for index, batch in enumerate(batches[:count]):
        path = os.path.join(folder, f"fid2qid_batch{index}.csv")
        write_fid2qid(path, [(i["metadata"]["fid"], i["metadata"]["id"]) for i in batch])
        files.append((path, len(batch), sum(i["metadata"]["duration"] for i in batch)))
    return files


class Setup:
    """A model, its optimizer and its thread count, and the times of its measured steps."""

    def __init__(self, name: str, model_params: dict, threads: int, per_utterance: bool, lr: float, reader,
                 bf16: bool = False) -> None:
        import torch
        from allennlp.common import Params
        from allennlp.data import Vocabulary
        from allennlp.models import Model

        from srcframework.common.conv_frames import convolve_per_utterance

        self.name, self.threads, self.reader, self.bf16 = name, threads, reader, bf16
        torch.manual_seed(13)
        self.model = Model.from_params(vocab=Vocabulary(), params=Params(json.loads(json.dumps(model_params))))
        if per_utterance:  # the network as it ran on 2026-11-30
            network = self.model.network

            def features(waveform, lengths):
                return convolve_per_utterance(network.encoder.prenet.feature_encoder, waveform, lengths, network.min_samples)

            network.features = features
        self.model.train()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.wall, self.cpu, self.utterances, self.audio, self.steps = 0.0, 0.0, 0, 0.0, 0
        self.operators = {}  # operator -> (calls, self CPU seconds) under --profile

    def step(self, fid2qid: str, epoch: int, vocab) -> tuple:
        """Reads the batch listed in `fid2qid` (perturbed as drawn for `epoch`) and trains on it:
        (wall seconds, CPU seconds, loss)."""
        import torch
        from allennlp.data import Batch

        torch.set_num_threads(self.threads)
        start_wall, start_cpu, start_children = time.perf_counter(), time.process_time(), children_cpu()
        self.reader.set_epoch(epoch)
        instances = list(self.reader.read(fid2qid))
        batch = Batch(instances)
        batch.index_instances(vocab)
        tensors = batch.as_tensor_dict()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.bf16):
            output = self.model(**tensors)
        output["loss"].backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)
        self.optimizer.step()
        self.optimizer.zero_grad()
        cpu = time.process_time() - start_cpu + children_cpu() - start_children
        return time.perf_counter() - start_wall, cpu, float(output["loss"].detach())


def children_cpu() -> float:
    """CPU seconds of this process's finished child processes (SoX)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def make_setups(names, config: dict, threads: int):
    lr = config["trainer"]["optimizer"]["lr"]
    current_threads = config_threads(config) or threads
    training_reader = config["dataset_reader"]
    setups = []
    for name in names:
        base, plus, precision = name.partition("+")
        kind, _, count = base.partition("@")
        if kind not in ("baseline", "serial", "current") or (count and not count.isdigit()) or (plus and precision != "bf16"):
            raise SystemExit(f"unknown setup {name!r}: baseline, serial, current, or one of them @THREADS, +bf16")
        bf16 = precision == "bf16"
        if kind == "baseline":
            reader = make_reader(config["validation_dataset_reader"], loading_threads=1)
            setups.append(Setup(name, BASELINE_MODEL, int(count or threads), per_utterance=True, lr=lr, reader=reader,
                                bf16=bf16))
        else:
            loading = 1 if kind == "serial" else training_reader.get("loading_threads", 1)
            reader = make_reader(training_reader, loading_threads=loading)
            setups.append(Setup(name, config["model"], int(count or current_threads), per_utterance=False, lr=lr,
                                reader=reader, bf16=bf16))
    return setups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=str(ROOT / "recipes" / "e2e_cpu" / "speecht5_ctc_pretrain.jsonnet"))
    parser.add_argument("--squad", default=str(DATA / "squad" / "dev-v1.1.json"))
    parser.add_argument("--src", default=None,
                        help="a SQuAD-SRC-layout folder to synthesize into and keep (a rerun reuses its WAVs) or to read as it is")
    parser.add_argument("--questions", type=int, default=96)
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2, help="the baseline's threads (and the current setup's where the config names none)")
    parser.add_argument("--setups", default="baseline,serial,current",
                        help="comma-separated: baseline, serial, current, each optionally @THREADS and +bf16 "
                             "(e.g. serial@2,current@2,current@2+bf16)")
    parser.add_argument("--epoch-utterances", type=int, default=27117, help="the pretraining's training utterances")
    parser.add_argument("--profile", action="store_true", help="print the top operators by CPU time per setup")
    args = parser.parse_args()

    import torch
    from allennlp.data import Vocabulary

    import srcframework  # noqa: F401  (registrations)
    from srcframework.jobs.synthesis import synthesize_questions

    config = load_config(args.config)
    batch_size = config["data_loader"]["batch_sampler"]["batch_size"]
    setups = make_setups([n.strip() for n in args.setups.split(",") if n.strip()], config, args.threads)
    vocab = Vocabulary()
    with tempfile.TemporaryDirectory() as scratch:
        src = args.src or os.path.join(scratch, "src")
        if not os.path.isfile(os.path.join(src, "fid2qid_dev.csv")):
            summary = synthesize_questions(args.squad, src, VOICES, limit=args.questions, progress=False)
            print(f"synthesized {summary['questions']} questions ({summary['total_audio_seconds']:.0f} s of audio) with {VOICES}")
        folder = os.path.join(scratch, "batches")
        os.makedirs(folder)
        batches = batch_files(src, config["validation_dataset_reader"], batch_size, args.warmup + args.batches, folder)
        load_before = os.getloadavg()
        for index, (fid2qid, utterances, seconds) in enumerate(batches):
            measured = index >= args.warmup
            shift = index % len(setups)
            for setup in setups[shift:] + setups[:shift]:
                if measured and args.profile:
                    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profiler:
                        wall, cpu, loss = setup.step(fid2qid, index, vocab)
                    for event in profiler.key_averages():
                        calls, total = setup.operators.get(event.key, (0, 0.0))
                        setup.operators[event.key] = (calls + event.count, total + event.self_cpu_time_total / 1e6)
                else:
                    wall, cpu, loss = setup.step(fid2qid, index, vocab)
                print(f"batch {index + 1} ({'measured' if measured else 'warm-up'}), {setup.name} ({setup.threads} threads): "
                      f"{utterances} utterances, {seconds:.1f} s of audio, wall {wall:.2f} s, cpu {cpu:.2f} s, loss {loss:.3f}",
                      flush=True)
                if measured:
                    setup.wall += wall
                    setup.cpu += cpu
                    setup.utterances += utterances
                    setup.audio += seconds
                    setup.steps += 1
    load_after = os.getloadavg()

    def reference(kind: str, setup: Setup):
        """The setup of `kind` with `setup`'s torch threads, else the first of `kind`."""
        of_kind = [s for s in setups if s.name.partition("@")[0].partition("+")[0] == kind and not s.bf16]
        return next((s for s in of_kind if s.threads == setup.threads), of_kind[0] if of_kind else None)

    results = {
        "batch_size": batch_size,
        "measured_batches": args.batches,
        "mean_utterance_seconds": round(setups[0].audio / setups[0].utterances, 3),
        "cpu_cores": os.cpu_count(),
        "load_average_1_5_15_before": [round(x, 2) for x in load_before],
        "load_average_1_5_15_after": [round(x, 2) for x in load_after],
        "setups": {},
    }
    print(f"batches of {batch_size}, mean utterance {results['mean_utterance_seconds']} s; "
          f"load average (1, 5, 15 min) before {results['load_average_1_5_15_before']}, after {results['load_average_1_5_15_after']} "
          f"on {os.cpu_count()} cores")
    for setup in setups:
        figures = {
            "threads": setup.threads,
            "loading_threads": setup.reader.loading_threads,
            "bf16_autocast": setup.bf16,
            "parameters": sum(p.numel() for p in setup.model.parameters()),
            "wall_seconds_per_batch": round(setup.wall / setup.steps, 3),
            "cpu_seconds_per_batch": round(setup.cpu / setup.steps, 3),
            "utterances_per_second": round(setup.utterances / setup.wall, 2),
            "audio_seconds_per_second": round(setup.audio / setup.wall, 2),
            "pass_minutes_from_wall": round(args.epoch_utterances * setup.wall / setup.utterances / 60, 1),
        }
        ratios = ""
        for kind in ("baseline", "serial"):
            other = reference(kind, setup)
            if other is not None and other is not setup:
                figures[f"{kind}_setup"] = other.name
                figures[f"wall_ratio_{kind}_over_this"] = round(other.wall / setup.wall, 2)
                figures[f"cpu_ratio_{kind}_over_this"] = round(other.cpu / setup.cpu, 2)
                ratios += (f"; {other.name} / this: wall {figures[f'wall_ratio_{kind}_over_this']}x, "
                           f"cpu {figures[f'cpu_ratio_{kind}_over_this']}x")
        results["setups"][setup.name] = figures
        print(f"{setup.name} ({setup.threads} threads, loading threads {setup.reader.loading_threads}, "
              f"{figures['parameters'] / 1e6:.2f} M parameters): seconds per batch "
              f"wall {figures['wall_seconds_per_batch']}, cpu {figures['cpu_seconds_per_batch']}; "
              f"{figures['utterances_per_second']} utterances/s; a pass of {args.epoch_utterances} utterances "
              f"{figures['pass_minutes_from_wall']} min from wall time{ratios}")
    if args.profile:
        for setup in setups:
            total = sum(seconds for _, seconds in setup.operators.values())
            print(f"\n{setup.name}: operators by self CPU time over its {setup.steps} measured batches (profiled: {total:.2f} s)")
            for key, (calls, seconds) in sorted(setup.operators.items(), key=lambda item: -item[1][1])[:15]:
                print(f"  {key:<40} {seconds / setup.steps:7.3f} s a batch  {100 * seconds / total:5.1f}%  {calls / setup.steps:6.0f} calls")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
