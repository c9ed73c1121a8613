"""Noise-source throughput on the 1,190 XQuAD-en questions, and the ASR source's real-time factor
and its scaling from 1 to 2 worker processes.

    .venv/bin/python benchmarks/noise_throughput.py [--asr-questions 100]

Prints questions/s for keyboard, misspelling, back_translation (apertium eng-spa-eng) and asr
(flite kal16 -> pocketsphinx); for asr, the seconds of audio made and the real-time factor of
synthesis and of recognition (processing seconds per audio second), and `allennlp noise` with
--workers 2 against the baseline --workers 1 on the same questions.
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
    from srcframework.noise.challenge_set import make_challenge_set
    from srcframework.noise.noise_source import NoiseSource

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
    asr = NoiseSource.from_params(Params({"type": "asr"}))
    start = time.perf_counter()
    waves = [asr.speak(q) for q in subset]
    tts_seconds = time.perf_counter() - start
    audio_seconds = sum(len(w) for w in waves) / 16000
    start = time.perf_counter()
    asr.recognizer.transcribe(waves, 16000)
    asr_seconds = time.perf_counter() - start
    figures["asr"] = len(subset) / (tts_seconds + asr_seconds)
    figures["asr_audio_seconds"] = audio_seconds
    figures["tts_rtf"] = tts_seconds / audio_seconds
    figures["asr_rtf"] = asr_seconds / audio_seconds
    print(f"| asr (flite kal16 + pocketsphinx) | {len(subset)} | {figures['asr']:.2f} |")
    print(f"\nasr: {audio_seconds:.0f} s of audio; real-time factor: synthesis {figures['tts_rtf']:.3f}, "
          f"recognition {figures['asr_rtf']:.3f}")

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
        for workers in (1, 2):
            start = time.perf_counter()
            make_challenge_set(str(subset_file), str(Path(tmp) / f"asr{workers}.json"), {"type": "asr"},
                               workers=workers, batch_size=8, progress=False)
            timing[workers] = count / (time.perf_counter() - start)
        same = (Path(tmp) / "asr1.json").read_bytes() == (Path(tmp) / "asr2.json").read_bytes()
    figures["asr_workers_1"], figures["asr_workers_2"] = timing[1], timing[2]
    print(f"\n`allennlp noise --type asr` on {count} questions (baseline: --workers 1)")
    print(f"| workers | questions/s |\n|---|---:|\n| 1 (baseline) | {timing[1]:.2f} |\n| 2 | {timing[2]:.2f} |")
    print(f"speed-up 2 workers / 1 worker: {timing[2] / timing[1]:.2f}; identical output: {same}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
