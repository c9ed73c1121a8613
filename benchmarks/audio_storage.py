"""Storing spoken questions: 16-bit WAV (the baseline) against FLAC, on the same recordings.

    .venv/bin/python benchmarks/audio_storage.py [--questions 40] [--voices flite:kal16,flite:awb,flite:slt]

The first N XQuAD-en questions are read by each voice (synthesised once, resampled to 16 kHz, as
`allennlp synthesize-speech` writes them), written to a temporary folder in each format, and read
back with soundfile as the `squad_src` reader does (float32). Prints, per format: megabytes per
hour of audio, milliseconds to read one recording (best of 3 passes), and the ratios to WAV; and
checks that FLAC gives back the same samples. The last line estimates, from these figures, the
disk a spoken copy of the robust-training split (9,380 questions) takes per voice.
"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("SHARED_DATA", ROOT.parent / "shared" / "data"))
SAMPLE_RATE = 16000
SPLIT_QUESTIONS = 9380


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--voices", default="flite:kal16,flite:awb,flite:slt")
    args = parser.parse_args()

    import numpy
    import soundfile

    from srcframework.common.audio import float_to_int16, resample, write_wav_atomic
    from srcframework.data.squad_file import iter_questions
    from srcframework.speech.voices import parse_voices

    questions = [q.question for q in iter_questions(DATA / "xquad" / "xquad.en.json")][: args.questions]
    waves = []
    for voice in parse_voices(args.voices):
        synthesizer = voice.build()
        for question in questions:
            waveform, rate = synthesizer.synthesize(question)
            waves.append(resample(waveform, rate, SAMPLE_RATE))
    hours = sum(len(w) for w in waves) / SAMPLE_RATE / 3600
    print(f"{len(waves)} recordings ({len(questions)} XQuAD-en questions x {args.voices}), {hours * 3600:.0f} s of audio\n")
    print("| format | MB per hour of audio | read ms per recording | size vs WAV | read time vs WAV |")
    print("|---|---:|---:|---:|---:|")
    figures = {}
    with tempfile.TemporaryDirectory() as folder:
        for fmt in ("WAV", "FLAC"):
            paths = [os.path.join(folder, f"{n}.{fmt.lower()}") for n in range(len(waves))]
            for path, wave in zip(paths, waves):
                write_wav_atomic(path, wave, SAMPLE_RATE, format=fmt)
            size = sum(os.path.getsize(p) for p in paths)
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                for p in paths:
                    soundfile.read(p, dtype="float32")
                best = min(best, time.perf_counter() - start)
            # lossless: the int16 samples written come back unchanged
            assert all(numpy.array_equal(soundfile.read(p, dtype="int16")[0], float_to_int16(w))
                       for p, w in zip(paths, waves)), f"{fmt} changed the samples"
            figures[fmt] = {"mb_per_hour": size / 1e6 / hours, "read_ms": 1000 * best / len(paths),
                            "bytes_per_recording": size / len(paths)}
    base = figures["WAV"]
    for fmt, row in figures.items():
        print(f"| {fmt}{' (baseline)' if fmt == 'WAV' else ''} | {row['mb_per_hour']:.0f} | {row['read_ms']:.2f} | "
              f"{row['mb_per_hour'] / base['mb_per_hour']:.2f}x | {row['read_ms'] / base['read_ms']:.2f}x |")
    print("\nboth give back the 16-bit samples written.")
    print("one voice reading the 9,380 questions of the training split: " + ", ".join(
        f"{fmt} {row['bytes_per_recording'] * SPLIT_QUESTIONS / 1e9:.2f} GB" for fmt, row in figures.items()))


if __name__ == "__main__":
    main()
