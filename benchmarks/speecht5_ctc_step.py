"""Training-step time of the small CTC SpeechT5 (recipes/e2e_cpu/speecht5_ctc_pretrain.jsonnet) on
synthesized spoken questions, and the epoch time it projects.

The first `--questions` questions of a SQuAD file are read aloud by the pretraining voices (flite
kal16, awb, slt, dealt in turn; the synthesis job, into a temporary folder unless `--src` names a
SQuAD-SRC-layout folder), read by the `squad_src` reader of the config, bucketed by duration into
batches of the config's size, and the model built from the config takes `--warmup` + `--batches`
training steps (forward with speed and volume perturbation, CTC loss, backward, Adam). It prints,
for the measured steps: wall and CPU (this process, all threads) seconds per batch, utterances
and audio seconds per wall second, and the epoch of `--epoch-utterances` (28,140: the 9,380
training questions x 3 voices) projected in minutes three ways: from wall time (what this run
saw, slowed by whatever else runs), from CPU time spread over `--threads` cores (the machine to
itself, perfect scaling: a lower bound), and from CPU time on one core (an upper bound for
`--threads 1` on an idle core).

    nice -n 19 .venv/bin/python benchmarks/speecht5_ctc_step.py [--threads 2] [--batches 6]
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


def load_config(path: str) -> dict:
    import _jsonnet

    from srcframework import config_defaults

    return json.loads(_jsonnet.evaluate_file(path, ext_vars=config_defaults.export()))


def read_batches(src: str, reader_params: dict, batch_size: int, count: int):
    """`count` batches of `batch_size` instances of similar duration, in a seeded order."""
    from allennlp.common import Params
    from allennlp.data import DatasetReader

    reader = DatasetReader.from_params(Params(dict(reader_params)))
    instances = list(reader.read(os.path.join(src, "fid2qid_dev.csv")))
    instances.sort(key=lambda i: i["metadata"]["duration"])
    batches = [instances[k : k + batch_size] for k in range(0, len(instances) - batch_size + 1, batch_size)]
    if len(batches) < count:
        raise SystemExit(f"{len(instances)} utterances give {len(batches)} batches of {batch_size}; {count} are needed")
    random.Random(13).shuffle(batches)
    return batches[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=str(ROOT / "recipes" / "e2e_cpu" / "speecht5_ctc_pretrain.jsonnet"))
    parser.add_argument("--squad", default=str(DATA / "squad" / "dev-v1.1.json"))
    parser.add_argument("--src", default=None,
                        help="a SQuAD-SRC-layout folder to synthesize into and keep (a rerun reuses its WAVs) or to read as it is")
    parser.add_argument("--questions", type=int, default=96)
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--epoch-utterances", type=int, default=28140)
    args = parser.parse_args()

    import torch
    from allennlp.common import Params
    from allennlp.data import Batch, Vocabulary
    from allennlp.models import Model

    import srcframework  # noqa: F401  (registrations)
    from srcframework.jobs.synthesis import synthesize_questions

    torch.set_num_threads(args.threads)
    torch.manual_seed(13)
    config = load_config(args.config)
    batch_size = config["data_loader"]["batch_sampler"]["batch_size"]
    with tempfile.TemporaryDirectory() as scratch:
        src = args.src or os.path.join(scratch, "src")
        if not os.path.isfile(os.path.join(src, "fid2qid_dev.csv")):
            summary = synthesize_questions(args.squad, src, VOICES, limit=args.questions, progress=False)
            print(f"synthesized {summary['questions']} questions ({summary['total_audio_seconds']:.0f} s of audio) with {VOICES}")
        batches = read_batches(src, config["validation_dataset_reader"], batch_size, args.warmup + args.batches)

    vocab = Vocabulary()
    model = Model.from_params(vocab=vocab, params=Params(dict(config["model"])))
    optimizer = torch.optim.Adam(model.parameters(), lr=config["trainer"]["optimizer"]["lr"])
    model.train()
    parameters = sum(p.numel() for p in model.parameters())
    load_before = os.getloadavg()[0]
    wall, cpu, utterances, audio = 0.0, 0.0, 0, 0.0
    for step, instances in enumerate(batches):
        batch = Batch(instances)
        batch.index_instances(vocab)
        tensors = batch.as_tensor_dict()
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        output = model(**tensors)
        output["loss"].backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
        optimizer.zero_grad()
        step_wall, step_cpu = time.perf_counter() - start_wall, time.process_time() - start_cpu
        seconds = sum(i["metadata"]["duration"] for i in instances)
        kind = "warm-up" if step < args.warmup else "measured"
        print(f"step {step + 1} ({kind}): {len(instances)} utterances, {seconds:.1f} s of audio, "
              f"wall {step_wall:.2f} s, cpu {step_cpu:.2f} s, loss {float(output['loss']):.3f}", flush=True)
        if step >= args.warmup:
            wall, cpu, utterances, audio = wall + step_wall, cpu + step_cpu, utterances + len(instances), audio + seconds
    steps = args.batches
    results = {
        "parameters": parameters,
        "threads": args.threads,
        "batch_size": batch_size,
        "measured_batches": steps,
        "mean_utterance_seconds": round(audio / utterances, 3),
        "wall_seconds_per_batch": round(wall / steps, 3),
        "cpu_seconds_per_batch": round(cpu / steps, 3),
        "utterances_per_second": round(utterances / wall, 2),
        "audio_seconds_per_second": round(audio / wall, 2),
        "epoch_minutes_from_wall": round(args.epoch_utterances * wall / utterances / 60, 1),
        "epoch_minutes_from_cpu_over_threads": round(args.epoch_utterances * cpu / utterances / args.threads / 60, 1),
        "epoch_minutes_from_cpu_one_core": round(args.epoch_utterances * cpu / utterances / 60, 1),
        "load_average_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }
    print(f"{parameters / 1e6:.2f} M parameters, batches of {batch_size}, {args.threads} threads, "
          f"mean utterance {results['mean_utterance_seconds']} s")
    print(f"seconds per batch: wall {results['wall_seconds_per_batch']}, cpu {results['cpu_seconds_per_batch']}; "
          f"{results['utterances_per_second']} utterances/s, {results['audio_seconds_per_second']} audio s/s (wall)")
    print(f"projected epoch of {args.epoch_utterances} utterances: {results['epoch_minutes_from_wall']} min from wall time, "
          f"{results['epoch_minutes_from_cpu_over_threads']} min from cpu time over {args.threads} cores, "
          f"{results['epoch_minutes_from_cpu_one_core']} min from cpu time on one core")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
