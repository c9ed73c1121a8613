"""Noise-source throughput on the 1,190 XQuAD-en questions, and the ASR source's real-time factor,
WER and scaling from 1 to 2 worker processes with pocketsphinx's default search (the baseline)
and with the `fast` preset, on the same questions.

    .venv/bin/python benchmarks/noise_throughput.py [--asr-questions 100]

Prints questions/s for keyboard, misspelling, back_translation (apertium eng-spa-eng) and asr
(flite kal16 -> pocketsphinx); for asr, the seconds of audio made, the real-time factor of
synthesis and of recognition (processing seconds per audio second) and the WER of each setup,
and `allennlp noise` questions/s with --workers 1 and 2 for each setup.
"""
import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("SHARED_DATA", ROOT.parent / "shared" / "data"))


def xquad_questions():
    from srcframework.data.squad_file import iter_questions

    return [q.question for q in iter_questions(DATA / "xquad" / "xquad.en.json")]


def rate(source, questions, batch_size=64):
    start = time.perf_counter()
    for k in range(0, len(questions), batch_size):
        source.noise(questions[k : k + batch_size], seed=0)
    return len(questions) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--asr-questions", type=int, default=100, help="questions for the (slow) asr figures")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()

    from allennlp.common import Params

    import srcframework  # noqa: F401
    from srcframework.jobs.challenge_set import make_challenge_set
    from srcframework.metrics.text_noise import wer
    from srcframework.noise.noise_source import NoiseSource
    from srcframework.speech.engines import SpeechRecognizer

    questions = xquad_questions()
    figures = {"questions": len(questions)}
    configs = {
        "keyboard": {"type": "keyboard"},
        "misspelling": {"type": "misspelling", "path": str(DATA / "misspellings/wikipedia_common_misspellings.txt")},
        "back_translation": {"type": "back_translation"},
    }
    print(f"| source | questions | questions/s |\n|---|---:|---:|")
    for name, config in configs.items():
        source = NoiseSource.from_params(Params(dict(config)))
        figures[name] = rate(source, questions)
        print(f"| {name} | {len(questions)} | {figures[name]:.1f} |", flush=True)

    subset = questions[: args.asr_questions]
    setups = {"default": {"type": "pocketsphinx"}, "fast": {"type": "pocketsphinx", "preset": "fast"}}
    speaker = NoiseSource.from_params(Params({"type": "asr"}))
    start = time.perf_counter()
    waves = [speaker.speak(q) for q in subset]
    tts_seconds = time.perf_counter() - start
    audio_seconds = sum(len(w) for w in waves) / 16000
    figures["asr_audio_seconds"] = audio_seconds
    figures["tts_rtf"] = tts_seconds / audio_seconds
    print(f"\nasr on {len(subset)} questions (flite kal16, {audio_seconds:.0f} s of audio; synthesis real-time factor "
          f"{figures['tts_rtf']:.3f}); baseline: the default pocketsphinx search")
    print("| recogniser | real-time factor | WER % | questions/s (TTS + ASR, 1 process) |\n|---|---:|---:|---:|")
    for name, config in setups.items():
        recognizer = SpeechRecognizer.from_params(Params(dict(config)))
        recognizer.transcribe(waves[:1], 16000)  # load the models before timing
        start = time.perf_counter()
        hyps = recognizer.transcribe(waves, 16000)
        asr_seconds = time.perf_counter() - start
        figures[f"asr_{name}_rtf"] = asr_seconds / audio_seconds
        figures[f"asr_{name}_wer"] = wer(subset, hyps)
        figures[f"asr_{name}"] = len(subset) / (tts_seconds + asr_seconds)
        print(f"| pocketsphinx {name} | {figures[f'asr_{name}_rtf']:.3f} | {figures[f'asr_{name}_wer']:.1f} | "
              f"{figures[f'asr_{name}']:.2f} |", flush=True)
    print(f"fast / default: {figures['asr_default_rtf'] / figures['asr_fast_rtf']:.2f}x faster, "
          f"WER {figures['asr_fast_wer'] - figures['asr_default_wer']:+.1f} points")

    with tempfile.TemporaryDirectory() as tmp:
        subset_file = Path(tmp) / "subset.json"
        data = json.load(open(DATA / "xquad" / "xquad.en.json", encoding="utf-8"))
        kept, count = [], 0
        for article in data["data"]:
            for paragraph in article["paragraphs"]:
                qas = paragraph["qas"][: max(0, args.asr_questions - count)]
                count += len(qas)
                if qas:
                    kept.append({"title": article.get("title", ""), "paragraphs": [dict(paragraph, qas=qas)]})
        subset_file.write_text(json.dumps({"version": "1.1", "data": kept}))
        timing = {}
        for name in ("default", "fast"):
            for workers in (1, 2):
                noise = {"type": "asr", "recognizer": setups[name]}
                start = time.perf_counter()
                make_challenge_set(str(subset_file), str(Path(tmp) / f"asr_{name}{workers}.json"), noise,
                                   workers=workers, batch_size=8, progress=False)
                timing[name, workers] = count / (time.perf_counter() - start)
            same = (Path(tmp) / f"asr_{name}1.json").read_bytes() == (Path(tmp) / f"asr_{name}2.json").read_bytes()
            figures[f"asr_{name}_identical_1_2"] = same
    print(f"\n`allennlp noise` (asr, flite kal16) on {count} questions (baseline: default search, --workers 1)")
    print("| recogniser | workers | questions/s | ratio to baseline |\n|---|---:|---:|---:|")
    for (name, workers), value in timing.items():
        figures[f"asr_{name}_workers_{workers}"] = value
        print(f"| {name} | {workers} | {value:.2f} | {value / timing['default', 1]:.2f}x |")
    print(f"9,380 training questions with the fast setup and 2 workers: about "
          f"{9380 / timing['fast', 2] / 60:.0f} minutes")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
