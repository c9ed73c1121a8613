"""Festival synthesis: one `text2wave` run per question (the baseline) against the festival
synthesizer's Festival process that stays up, on the same XQuAD-en questions and voices.

    .venv/bin/python benchmarks/festival_synthesis.py [--questions 20] [--voices kal_diphone,cmu_us_slt_arctic_hts]

Prints, per voice and way: seconds per question (wall; the process's start-up counted in its
first question), the speed-up against text2wave, and whether every waveform is the same sample
for sample.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("SHARED_DATA", ROOT.parent / "shared" / "data"))


def text2wave(text: str, voice: str):
    from srcframework.common.audio import read_wav

    with tempfile.TemporaryDirectory() as folder:
        source, path = os.path.join(folder, "text.txt"), os.path.join(folder, "speech.wav")
        Path(source).write_text(text, encoding="utf-8")
        subprocess.run(["text2wave", "-eval", f"(voice_{voice})", "-o", path, source], check=True, capture_output=True)
        return read_wav(path, allow_empty=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--voices", default="kal_diphone,ked_diphone,cmu_us_slt_arctic_hts")
    args = parser.parse_args()

    import numpy

    from srcframework.data.squad_file import iter_questions
    from srcframework.speech.festival import FestivalSynthesizer

    questions = [q.question for q in iter_questions(DATA / "xquad" / "xquad.en.json")][: args.questions]
    print(f"{len(questions)} XQuAD-en questions, load average {os.getloadavg()[0]:.2f}\n")
    print("| voice | text2wave s/question (baseline) | Festival process s/question | speed-up | same waveforms |")
    print("|---|---:|---:|---:|---|")
    for voice in args.voices.split(","):
        start = time.perf_counter()
        reference = [text2wave(q, voice) for q in questions]
        baseline = (time.perf_counter() - start) / len(questions)
        synthesizer = FestivalSynthesizer(voice)
        start = time.perf_counter()
        ours = [synthesizer.synthesize(q) for q in questions]
        kept = (time.perf_counter() - start) / len(questions)
        synthesizer.close()
        same = sum(r1 == r2 and numpy.array_equal(w1, w2) for (w1, r1), (w2, r2) in zip(reference, ours))
        print(f"| {voice} | {baseline:.3f} | {kept:.3f} | {baseline / kept:.1f}x | {same} of {len(questions)} |", flush=True)


if __name__ == "__main__":
    main()
