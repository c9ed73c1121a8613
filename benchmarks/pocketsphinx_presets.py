"""PocketSphinx decoder setups compared on the same spoken XQuAD questions: real-time factor and WER.

    .venv/bin/python benchmarks/pocketsphinx_presets.py [--questions 100] [--voice kal16]
    .venv/bin/python benchmarks/pocketsphinx_presets.py --pristine [--preset fast]

The first N XQuAD-en questions are synthesised once (flite), then decoded by each candidate setup:
the default three-pass search (the baseline), and variants that drop the flat-lexicon and
best-path passes, evaluate every 2nd or 3rd frame (`ds`), use fewer Gaussians (`topn`), narrow
the beams, cap the active HMMs per frame (`maxhmmpf`) or prune with the phone loop
(`pl_window`). Prints one row per setup: recognition seconds, real-time factor (seconds of
CPU time of decoding per second of audio, so that the figure holds on a busy machine), speed-up
against the default, and WER (%) against the typed
questions. The `fast` preset in `srcframework/speech/pocketsphinx_asr.py` is the row chosen.

`--pristine` instead compares the two ways each utterance gets a freshly loaded decoder, on one
preset: re-initialising the decoder before each utterance (the baseline) and decoding in a forked
child of a decoder loaded once. It prints wall and CPU seconds (children included), the speed-up
and how many transcripts the two agree on (they must agree on all).
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("SHARED_DATA", ROOT.parent / "shared" / "data"))

TREE_ONLY = {"fwdflat": False, "bestpath": False}
CANDIDATES = {
    "default (baseline)": {"preset": "default"},
    "no best path": {"options": {"bestpath": False}},
    "tree search only": {"options": TREE_ONLY},
    "tree + topn 2": {"options": dict(TREE_ONLY, topn=2)},
    "tree + beam 1e-40": {"options": dict(TREE_ONLY, beam=1e-40, pbeam=1e-40)},
    "tree + beam 1e-35": {"options": dict(TREE_ONLY, beam=1e-35, pbeam=1e-35, wbeam=1e-25)},
    "tree + maxhmmpf 5000": {"options": dict(TREE_ONLY, maxhmmpf=5000)},
    "tree + maxwpf 10": {"options": dict(TREE_ONLY, maxwpf=10)},
    "tree + phone loop 5": {"options": dict(TREE_ONLY, pl_window=5)},
    "tree + topn 2 + maxhmmpf 5000": {"options": dict(TREE_ONLY, topn=2, maxhmmpf=5000)},
    "tree + topn 2 + maxhmmpf 3000": {"options": dict(TREE_ONLY, topn=2, maxhmmpf=3000)},
    "tree + ds 2": {"options": dict(TREE_ONLY, ds=2)},
    "tree + ds 2 + topn 2 + narrow beams": {"options": dict(TREE_ONLY, ds=2, topn=2, beam=1e-40, pbeam=1e-40, maxhmmpf=3000)},
    "fast preset": {"preset": "fast"},
}


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (the forked decoders)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def compare_pristine(waves, preset: str) -> dict:
    from srcframework.speech.pocketsphinx_asr import PocketsphinxRecognizer

    print(f"| fresh decoder per utterance ({preset}) | wall s | CPU s | speed-up (CPU) |\n|---|---:|---:|---:|")
    rows, transcripts = {}, {}
    for way in ("reinit", "fork"):
        recognizer = PocketsphinxRecognizer(preset=preset)
        recognizer.pristine = way
        recognizer.decoder()  # load the models before timing
        start, cpu_start = time.perf_counter(), cpu_seconds()
        transcripts[way] = recognizer.transcribe(waves, 16000)
        rows[way] = {"seconds": time.perf_counter() - start, "cpu_seconds": cpu_seconds() - cpu_start}
        rows[way]["speedup"] = rows["reinit"]["cpu_seconds"] / rows[way]["cpu_seconds"]
        label = "re-initialise (baseline)" if way == "reinit" else "fork"
        print(f"| {label} | {rows[way]['seconds']:.1f} | {rows[way]['cpu_seconds']:.1f} | {rows[way]['speedup']:.2f}x |", flush=True)
    same = sum(a == b for a, b in zip(transcripts["reinit"], transcripts["fork"]))
    print(f"\nsame transcripts: {same} of {len(waves)}")
    return {"preset": preset, "ways": rows, "same_transcripts": same}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--voice", default="kal16")
    parser.add_argument("--only", nargs="*", help="run only these candidate names")
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--pristine", action="store_true", help="compare re-initialising with forking (see above)")
    parser.add_argument("--preset", default="fast", help="the preset --pristine decodes with")
    args = parser.parse_args()

    import srcframework  # noqa: F401
    from srcframework.data.squad_file import iter_questions
    from srcframework.noise.asr import AsrNoise
    from srcframework.metrics.text_noise import wer
    from srcframework.speech.flite import FliteSynthesizer
    from srcframework.speech.pocketsphinx_asr import PocketsphinxRecognizer

    questions = [q.question for q in iter_questions(DATA / "xquad" / "xquad.en.json")][: args.questions]
    speaker = AsrNoise(synthesizer=FliteSynthesizer(voice=args.voice))
    waves = [speaker.speak(q) for q in questions]
    audio_seconds = sum(len(w) for w in waves) / 16000
    print(f"{len(questions)} XQuAD-en questions, flite {args.voice}, {audio_seconds:.0f} s of audio\n")
    if args.pristine:
        figures = compare_pristine(waves, args.preset)
        if args.json:
            Path(args.json).write_text(json.dumps(figures, indent=1))
        return
    print("| setup | wall s | CPU s | real-time factor (CPU) | speed-up | WER % |\n|---|---:|---:|---:|---:|---:|")
    figures = {"questions": len(questions), "audio_seconds": audio_seconds, "setups": {}}
    base = None
    for name, config in CANDIDATES.items():
        if args.only and name not in args.only:
            continue
        recognizer = PocketsphinxRecognizer(**config)
        recognizer.transcribe(waves[:1], 16000)  # load the models before timing
        start, cpu_start = time.perf_counter(), cpu_seconds()
        hyps = recognizer.transcribe(waves, 16000)
        seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu_start
        base = base or cpu
        row = {"seconds": seconds, "cpu_seconds": cpu, "rtf": cpu / audio_seconds, "speedup": base / cpu,
               "wer": wer(questions, hyps), "config": config}
        figures["setups"][name] = row
        print(f"| {name} | {seconds:.1f} | {cpu:.1f} | {row['rtf']:.3f} | {row['speedup']:.2f}x | {row['wer']:.1f} |", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
