"""The `speecht5` question encoder of the end-to-end CPU model (recipes/e2e_cpu) on real
synthesized questions: its convolutional feature encoder run one utterance at a time (the
baseline, `convolve_per_utterance`, as the encoder ran before 2026-12-01) against once per batch
(`convolve_batched`, as the CTC pretraining runs it), side by side on the same batches. The
encoder now picks the batched form only where its feature encoder trains, which the recipe's
stages never do (`freeze_feature_encoder`); this measures what that choice rests on.

The encoder is the small SpeechT5 of training_configs/lib/speecht5_ctc.libsonnet (randomly
initialised: the step time does not depend on the weights), saved as the pretraining saves it and
loaded through `model_name`, as e2e_speecht5_ctc.jsonnet loads it (`freeze_feature_encoder`,
projection to 200). Two stages, as the recipe trains them: `frozen` (the whole encoder fixed,
only the projection trains: forward, and backward through the projection) and `tuned` (the
transformer trains too; the convolutions stay fixed). Each step is the encoding of a batch of 20
questions and the backward of a fixed random loss over its outputs. Setups run interleaved, batch
by batch, in an order that rotates with the batch; it prints wall and CPU seconds per batch and
the ratios baseline / batched (above 1: batched is faster). One torch thread unless `--threads`.

    .venv/bin/python benchmarks/audio_encoder_step.py --src /tmp/ctc_bench_src --batches 6
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


def encoder_folder(scratch: str) -> str:
    """A randomly initialised small SpeechT5 encoder folder, written as the pretraining writes it."""
    from allennlp.common import Params
    from allennlp.data import Vocabulary
    from allennlp.models import Model

    from speecht5_ctc_step import load_config

    config = load_config(str(ROOT / "recipes" / "e2e_cpu" / "speecht5_ctc_pretrain.jsonnet"))
    model = Model.from_params(vocab=Vocabulary(), params=Params(config["model"]))
    return model.save_encoder(os.path.join(scratch, "speecht5_ctc"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--squad", default=str(DATA / "squad" / "dev-v1.1.json"))
    parser.add_argument("--src", default=None, help="a SQuAD-SRC-layout folder to synthesize into and keep, or to read")
    parser.add_argument("--questions", type=int, default=160)
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()

    import torch
    from allennlp.common import Params
    from allennlp.data import Batch, Vocabulary

    import srcframework  # noqa: F401  (registrations)
    from speecht5_ctc_step import load_config, read_batches
    from srcframework.common import conv_frames
    from srcframework.jobs.synthesis import synthesize_questions
    from srcframework.modules.field_encoders import pretrained_audio
    from srcframework.modules.field_encoders.field_encoder import FieldEncoder

    torch.set_num_threads(args.threads)
    e2e = load_config(str(ROOT / "recipes" / "e2e_cpu" / "e2e_speecht5_ctc.jsonnet"))
    batch_size = e2e["data_loader"]["batch_sampler"]["batch_size"]
    question = e2e["model"]["question_encoder"]
    with tempfile.TemporaryDirectory() as scratch:
        src = args.src or os.path.join(scratch, "src")
        if not os.path.isfile(os.path.join(src, "fid2qid_dev.csv")):
            synthesize_questions(args.squad, src, VOICES, limit=args.questions, progress=False)
        ctc = load_config(str(ROOT / "recipes" / "e2e_cpu" / "speecht5_ctc_pretrain.jsonnet"))
        batches = read_batches(src, ctc["validation_dataset_reader"], batch_size, args.warmup + args.batches)
        folder = encoder_folder(scratch)
        encoders = {}
        for stage, freeze in (("frozen", True), ("tuned", False)):
            torch.manual_seed(13)
            params = dict(question, model_name=folder, freeze=freeze)
            encoders[stage] = FieldEncoder.from_params(Params(params)).train()

        convolutions = {"baseline": conv_frames.convolve_per_utterance, "batched": conv_frames.convolve_batched}
        setups = [(stage, code) for stage in encoders for code in convolutions]
        times = {setup: [0.0, 0.0] for setup in setups}
        vocab = Vocabulary()
        for index, instances in enumerate(batches):
            batch = Batch(instances)
            batch.index_instances(vocab)
            audio = batch.as_tensor_dict()["question"]
            measured = index >= args.warmup
            shift = index % len(setups)
            for stage, code in setups[shift:] + setups[:shift]:
                encoder = encoders[stage]
                # force the code path (the encoder picks by whether its convolutions train)
                pretrained_audio.convolve_batched = pretrained_audio.convolve_per_utterance = convolutions[code]
                encoder.zero_grad()
                start_wall, start_cpu = time.perf_counter(), time.process_time()
                encoded, mask = encoder(audio)
                weights = torch.Generator().manual_seed(index)
                loss = (encoded * torch.randn(encoded.shape, generator=weights) * mask.unsqueeze(-1)).sum()
                loss.backward()
                wall, cpu = time.perf_counter() - start_wall, time.process_time() - start_cpu
                print(f"batch {index + 1} ({'measured' if measured else 'warm-up'}) {stage} {code}: "
                      f"{len(instances)} questions, wall {wall:.3f} s, cpu {cpu:.3f} s", flush=True)
                if measured:
                    times[(stage, code)][0] += wall
                    times[(stage, code)][1] += cpu
        pretrained_audio.convolve_batched = conv_frames.convolve_batched
        pretrained_audio.convolve_per_utterance = conv_frames.convolve_per_utterance

    results = {"batch_size": batch_size, "measured_batches": args.batches, "threads": args.threads,
               "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()], "stages": {}}
    for stage in encoders:
        base, now = times[(stage, "baseline")], times[(stage, "batched")]
        figures = {
            "baseline_wall_seconds_per_batch": round(base[0] / args.batches, 3),
            "baseline_cpu_seconds_per_batch": round(base[1] / args.batches, 3),
            "batched_wall_seconds_per_batch": round(now[0] / args.batches, 3),
            "batched_cpu_seconds_per_batch": round(now[1] / args.batches, 3),
            "wall_ratio_baseline_over_batched": round(base[0] / now[0], 2),
            "cpu_ratio_baseline_over_batched": round(base[1] / now[1], 2),
        }
        results["stages"][stage] = figures
        print(f"{stage}: baseline wall {figures['baseline_wall_seconds_per_batch']} s, cpu {figures['baseline_cpu_seconds_per_batch']} s; "
              f"batched wall {figures['batched_wall_seconds_per_batch']} s, cpu {figures['batched_cpu_seconds_per_batch']} s; "
              f"baseline / batched: wall {figures['wall_ratio_baseline_over_batched']}x, cpu {figures['cpu_ratio_baseline_over_batched']}x")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
