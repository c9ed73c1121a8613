"""Noise-source throughput on the 1,190 XQuAD-en questions, and the ASR source's real-time factor,
WER and scaling from 1 to 2 worker processes with pocketsphinx's default search (the baseline)
and with the `fast` preset, on the same questions.

    .venv/bin/python benchmarks/noise_throughput.py [--asr-questions 100]

Prints questions/s for keyboard, misspelling, back_translation (apertium eng-spa-eng) and asr
(flite kal16 -> pocketsphinx); for asr, the seconds of audio made, the real-time factor of
synthesis and of recognition (processing seconds per audio second) and the WER of each setup,
and `allennlp noise` questions/s with --workers 1 and 2 for each setup.

Then each source through `allennlp noise --workers 1` and `--workers 2` (its own process; raw wall
time and net of a one-question start-up run of the same source), in questions/s, per worker and per
core, against the engines run alone on the same questions in the same run (the baseline, the limit
of each path): apertium's command line (`apertium -u eng-spa`, then `spa-eng` on its output, one
call each), the `flite` binary with the ASR path's voice (kal16) writing each question's wav, and
pocketsphinx's Python decoder (`pocketsphinx.Decoder`, the recogniser's options, loaded once) on
those wavs; keyboard and misspelling have no engine, so their limit is the source in this process
(the first table). The limit of the ASR path is one question's flite plus its pocketsphinx time;
with 2 workers every limit is scaled by the cores the workers can use.

    .venv/bin/python benchmarks/noise_throughput.py [--asr-questions 100] [--cli-questions 1190]

`--quick` (the test) runs everything on a few questions, and each `allennlp noise` in a child forked
from one process that made the command's imports once (evaluate_predict.py's `ForkServer`) rather than
in a fresh interpreter: its raw time and its start-up run then hold no interpreter start or imports.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
DATA = Path(os.environ.get("SHARED_DATA", ROOT.parent / "shared" / "data"))


def xquad_questions():
    from srcframework.data.squad_file import iter_questions

    return [q.question for q in iter_questions(DATA / "xquad" / "xquad.en.json")]


def rate(source, questions, batch_size=64):
    start = time.perf_counter()
    for k in range(0, len(questions), batch_size):
        source.noise(questions[k : k + batch_size], seed=0)
    return len(questions) / (time.perf_counter() - start)


def subset_file(path: Path, limit: int) -> int:
    """The first `limit` XQuAD-en questions as a SQuAD file at `path`; returns how many."""
    data = json.load(open(DATA / "xquad" / "xquad.en.json", encoding="utf-8"))
    kept, count = [], 0
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            qas = paragraph["qas"][: max(0, limit - count)]
            count += len(qas)
            if qas:
                kept.append({"title": article.get("title", ""), "paragraphs": [dict(paragraph, qas=qas)]})
    path.write_text(json.dumps({"version": "1.1", "data": kept}))
    return count


NOISE_CONFIGS = {
    "keyboard": "keyboard",
    "misspelling": json.dumps({"type": "misspelling", "path": str(DATA / "misspellings/wikipedia_common_misspellings.txt")}),
    "back_translation": "back_translation",
    "asr": "asr",
}


def cli_rate(source: str, data: Path, out: Path, workers: int, server=None) -> float:
    """Seconds of `allennlp noise DATA OUT --noise SOURCE --workers N` in its own process: a fresh
    interpreter, or a child forked by `server` (a `ForkServer`, --quick)."""
    command = [str(Path(sys.executable).parent / "allennlp"), "noise", str(data), str(out), "--noise",
               NOISE_CONFIGS[source], "--workers", str(workers), "--no-progress"]
    if server is not None:
        log = out.with_name(out.name + ".log")
        done = server.run(command, log)
        if done["returncode"] != 0:
            sys.exit(f"{' '.join(command)} failed:\n{log.read_text(errors='replace')[-3000:]}")
        return done["seconds"]
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    return seconds


def apertium_alone(questions) -> float:
    """Seconds of apertium's command line alone: eng-spa on the questions (a line each), then
    spa-eng on its output, one process call each."""
    text = "\n".join(" ".join(q.split()) for q in questions) + "\n"
    began = time.perf_counter()
    for pair in ("eng-spa", "spa-eng"):
        done = subprocess.run(["apertium", "-u", pair], input=text, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"apertium -u {pair} failed: {done.stderr.strip()}")
        text = done.stdout
    return time.perf_counter() - began


def flite_alone(questions, folder: Path, voice: str = "kal16"):
    """Seconds of the flite binary alone writing each question's wav (as the ASR path calls it),
    and the wavs."""
    paths = []
    began = time.perf_counter()
    for k, question in enumerate(questions):
        path = folder / f"q{k}.wav"
        subprocess.run(["flite", "-voice", voice, "-t", question, "-o", str(path)], capture_output=True, check=True)
        paths.append(path)
    return time.perf_counter() - began, paths


def pocketsphinx_alone(paths) -> float:
    """Seconds of pocketsphinx's Python decoder alone (the recogniser's options, loaded once before
    the timing) on the wavs, one utterance after another."""
    from srcframework.common.audio import float_to_int16, read_wav, resample
    from srcframework.speech.pocketsphinx_asr import PocketsphinxRecognizer, decode

    decoder = PocketsphinxRecognizer().decoder()
    samples = []
    for path in paths:
        waveform, rate = read_wav(str(path), allow_empty=True)
        samples.append(float_to_int16(resample(waveform, rate, 16000)))
    began = time.perf_counter()
    for utterance in samples:
        if utterance.size:
            decode(decoder, utterance)
    return time.perf_counter() - began


def engines_against_cli(args, questions, in_process: dict, figures: dict, server=None) -> None:
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        rows = []
        for source in ("keyboard", "misspelling", "back_translation", "asr"):
            limit = args.asr_questions if source == "asr" else args.cli_questions
            data = tmp / f"{source}_in.json"
            count = subset_file(data, limit)
            texts = questions[:count]
            one = tmp / f"{source}_one.json"
            subset_file(one, 1)
            startup = cli_rate(source, one, tmp / f"{source}_one_out.json", 1, server)
            if source == "back_translation":
                engine, label = count / apertium_alone(texts), "apertium eng-spa + spa-eng CLI"
            elif source == "asr":
                (tmp / "wav").mkdir()
                flite_seconds, paths = flite_alone(texts, tmp / "wav")
                sphinx_seconds = pocketsphinx_alone(paths)
                engine, label = count / (flite_seconds + sphinx_seconds), "flite kal16 CLI + pocketsphinx decoder"
                figures["engine_flite_questions_per_s"] = count / flite_seconds
                figures["engine_pocketsphinx_questions_per_s"] = count / sphinx_seconds
            else:
                engine, label = in_process[source], "the source in this process"
            figures[f"engine_{source}_questions_per_s"] = engine
            for workers in (1, 2):
                seconds = cli_rate(source, data, tmp / f"{source}_{workers}.json", workers, server)
                used = min(workers, cores)
                raw = count / seconds
                net = count / max(seconds - startup, 1e-9) if seconds > startup else None
                row = {"source": source, "workers": workers, "questions": count, "seconds": seconds,
                       "startup_seconds": startup, "raw": raw, "net": net, "engine": engine * used,
                       "engine_label": label}
                rows.append(row)
                figures[f"cli_{source}_workers_{workers}"] = row
    print(f"\n`allennlp noise` against the engines alone (the baseline: the limit of each path, scaled by the "
          f"cores the workers can use; {cores} CPUs); raw: the process's wall time, net: minus a one-question run\n")
    print("| source | workers | questions | raw q/s | net q/s | net per worker | net per core | engine limit q/s "
          "| engine | % of limit (net) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    for row in rows:
        net = row["net"]
        cells = ["n/a"] * 4 if net is None else [f"{net:.2f}", f"{net / row['workers']:.2f}",
                                                  f"{net / min(row['workers'], cores):.2f}",
                                                  f"{100 * net / row['engine']:.0f}%"]
        print(f"| {row['source']} | {row['workers']} | {row['questions']} | {row['raw']:.2f} | {cells[0]} | "
              f"{cells[1]} | {cells[2]} | {row['engine']:.2f} | {row['engine_label']} | {cells[3]} |")
    if "engine_flite_questions_per_s" in figures:
        print(f"ASR engines alone: flite {figures['engine_flite_questions_per_s']:.2f} questions/s, pocketsphinx "
              f"{figures['engine_pocketsphinx_questions_per_s']:.2f} questions/s (one core)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--asr-questions", type=int, default=100, help="questions for the (slow) asr figures")
    parser.add_argument("--cli-questions", type=int, default=1190,
                        help="questions of the text sources through `allennlp noise` and their engines")
    parser.add_argument("--quick", action="store_true",
                        help="a few questions everywhere, each `allennlp noise` forked from one process that made "
                             "its imports once (the test)")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    if args.quick:
        args.asr_questions, args.cli_questions = 2, 8

    from allennlp.common import Params

    import srcframework  # noqa: F401
    from srcframework.jobs.challenge_set import make_challenge_set
    from srcframework.metrics.text_noise import wer
    from srcframework.noise.noise_source import NoiseSource
    from srcframework.speech.engines import SpeechRecognizer

    server = None
    if args.quick:  # forked now, before any work: its children start from the imports alone
        from evaluate_predict import ForkServer

        server = ForkServer.fork()
    questions = xquad_questions()
    if args.quick:
        questions = questions[:16]
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
        subset = Path(tmp) / "subset.json"
        count = subset_file(subset, args.asr_questions)
        timing = {}
        for name in ("default", "fast"):
            for workers in (1, 2):
                noise = {"type": "asr", "recognizer": setups[name]}
                start = time.perf_counter()
                make_challenge_set(str(subset), str(Path(tmp) / f"asr_{name}{workers}.json"), noise,
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
    try:
        engines_against_cli(args, questions, {name: figures[name] for name in configs}, figures, server)
    finally:
        if server is not None:
            server.close()
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
