"""Cascade latency and throughput: spoken question -> ASR -> text QA model, split by stage, with
the text model alone (the clean question typed in) as the baseline; and the transformer QA model's
training speed at sequence length 256.

The spoken questions are the first N recordings of a SQuAD-SRC-layout folder (make one with
`allennlp synthesize-speech ../shared/data/xquad/xquad.en.json runs/xquad_kal16 --voices flite:kal16`).
Each question goes through the stages one at a time (batch size 1, as an interactive system
would): read the WAV, recognise it (pocketsphinx), answer the transcript with each archive.

    .venv/bin/python benchmarks/cascade_latency.py --src runs/xquad_kal16 \
        --archive bidaf=runs/bidaf_cpu_scale/model.tar.gz \
        --archive minilm=runs/transformer_qa_cpu_scale/model.tar.gz
"""
import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def summary(seconds):
    return {"mean_ms": 1000 * statistics.mean(seconds), "median_ms": 1000 * statistics.median(seconds),
            "p90_ms": 1000 * sorted(seconds)[int(0.9 * (len(seconds) - 1))]}


def spoken_questions(src: str, count: int):
    from srcframework.data.squad_src_layout import SquadSrcFolder
    from srcframework.jobs.transcription import spoken_questions as folder_questions

    join = folder_questions(SquadSrcFolder(src))
    return [(spoken.audio, spoken.question) for spoken in join.questions[:count]]


def cascade(args) -> dict:
    import torch
    from allennlp.predictors import Predictor

    from srcframework.common.audio import read_wav
    from srcframework.speech.pocketsphinx_asr import PocketsphinxRecognizer

    torch.set_num_threads(args.threads)
    items = spoken_questions(args.src, args.questions)
    recognizer = PocketsphinxRecognizer()
    predictors = {}
    for spec in args.archive:
        name, path = spec.split("=", 1)
        predictors[name] = Predictor.from_path(path, "span_qa")
    stages = {"read_wav": [], "asr": []}
    stages.update({f"{name}_on_transcript": [] for name in predictors})
    stages.update({f"{name}_on_text (baseline)": [] for name in predictors})
    audio_seconds = 0.0
    for path, question in items:
        started = time.perf_counter()
        waveform, rate = read_wav(path)
        stages["read_wav"].append(time.perf_counter() - started)
        audio_seconds += len(waveform) / rate
        started = time.perf_counter()
        transcript = recognizer.transcribe([waveform], rate)[0] or "?"
        stages["asr"].append(time.perf_counter() - started)
        for name, predictor in predictors.items():
            for key, text in ((f"{name}_on_transcript", transcript), (f"{name}_on_text (baseline)", question.question)):
                started = time.perf_counter()
                predictor.predict_json({"id": question.qid, "question": text, "context": question.context})
                stages[key].append(time.perf_counter() - started)
    result = {"questions": len(items), "audio_seconds": audio_seconds, "stages": {k: summary(v) for k, v in stages.items()}}
    asr_total = sum(stages["read_wav"]) + sum(stages["asr"])
    result["asr_real_time_factor"] = asr_total / audio_seconds
    result["pipelines"] = {}
    for name in predictors:
        cascade_total = asr_total + sum(stages[f"{name}_on_transcript"])
        text_total = sum(stages[f"{name}_on_text (baseline)"])
        result["pipelines"][name] = {
            "cascade_questions_per_s": len(items) / cascade_total,
            "text_questions_per_s": len(items) / text_total,
            "cascade_over_text_latency": cascade_total / text_total,
            "asr_share_of_cascade": asr_total / cascade_total,
        }
    return result


def transformer_training(args) -> dict:
    """Windows/s of transformer_qa training steps: batches of `--train-batch` single-window questions,
    every window padded to the reader's `length_limit` (256 wordpieces), the length a window of a
    long context has."""
    import _jsonnet
    import torch
    from allennlp.common import Params
    from allennlp.data import Batch, DatasetReader, Vocabulary
    from allennlp.models import Model

    from srcframework import config_defaults

    torch.set_num_threads(args.threads)
    config = json.loads(_jsonnet.evaluate_file(str(ROOT / "training_configs/transformer_qa_cpu_scale.jsonnet"),
                                               ext_vars=config_defaults.export()))
    reader = DatasetReader.from_params(Params(dict(config["dataset_reader"], max_instances=4 * args.train_batch)))
    instances = [i for i in reader.read(config["train_data_path"]) if len(i["windows"].field_list) == 1]
    model = Model.from_params(vocab=Vocabulary(), params=Params(config["model"]))
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
    model.train()
    times = []
    for step in range(args.train_steps + 1):
        batch = Batch(instances[step * args.train_batch % len(instances):][: args.train_batch])
        if len(batch.instances) < args.train_batch:
            batch = Batch(instances[: args.train_batch])
        batch.index_instances(model.vocab)
        lengths = batch.get_padding_lengths()
        for key in lengths["windows"]:
            if key.startswith("list_tokens___"):
                lengths["windows"][key] = config["dataset_reader"]["length_limit"]
        tensors = batch.as_tensor_dict(lengths)
        started = time.perf_counter()
        loss = model(**tensors)["loss"]
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if step:  # the first step warms up
            times.append(time.perf_counter() - started)
    length = tensors["windows"]["tokens"]["token_ids"].shape[-1]
    return {"batch_windows": args.train_batch, "padded_length": int(length),
            "seconds_per_step": statistics.median(times), "windows_per_s": args.train_batch / statistics.median(times)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--src", default="runs/xquad_kal16")
    parser.add_argument("--archive", action="append", default=[], help="NAME=model.tar.gz (repeatable)")
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--train-batch", type=int, default=16)
    parser.add_argument("--train-steps", type=int, default=3)
    parser.add_argument("--skip-training", action="store_true")
    parser.add_argument("--output", default="runs/bench/cascade_latency.json")
    args = parser.parse_args()
    if not args.archive:
        parser.error("give at least one --archive NAME=model.tar.gz")
    if not os.path.isfile(os.path.join(args.src, "fid2qid_dev.csv")):
        parser.error(f"{args.src} is not a spoken-question folder (no fid2qid_dev.csv); make one with allennlp synthesize-speech")
    result = {"cascade": cascade(args)}
    if not args.skip_training:
        result["transformer_training"] = transformer_training(args)
    c = result["cascade"]
    print(f"{c['questions']} spoken questions, {c['audio_seconds']:.0f} s of audio; ASR real-time factor {c['asr_real_time_factor']:.2f}")
    print("| stage | mean ms | median ms | p90 ms |\n|---|---:|---:|---:|")
    for stage, s in c["stages"].items():
        print(f"| {stage} | {s['mean_ms']:.0f} | {s['median_ms']:.0f} | {s['p90_ms']:.0f} |")
    print("| pipeline | cascade q/s | text-only q/s (baseline) | latency ratio cascade/text | ASR share |\n|---|---:|---:|---:|---:|")
    for name, p in c["pipelines"].items():
        print(f"| {name} | {p['cascade_questions_per_s']:.2f} | {p['text_questions_per_s']:.2f} | "
              f"{p['cascade_over_text_latency']:.1f} | {100 * p['asr_share_of_cascade']:.0f}% |")
    if "transformer_training" in result:
        t = result["transformer_training"]
        print(f"transformer_qa training: {t['windows_per_s']:.2f} windows/s ({t['batch_windows']} x {t['padded_length']}, "
              f"{t['seconds_per_step']:.1f} s/step)")
    os.makedirs(os.path.dirname(args.output) or ".", exist_ok=True)
    with open(args.output, "w") as handle:
        json.dump(result, handle, indent=2)


if __name__ == "__main__":
    main()
