"""CTC decoding time: greedy decoding (the baseline) against the `lexicon_beam` decoder with a word
trigram LM, on the same emissions.

    .venv/bin/python benchmarks/ctc_beam_decoding.py [--utterances 200] [--noise 1.5] [--beams 10,50]

The LM is estimated by IRSTLM from the first 2,000 SQuAD v1.1 dev questions. The emissions are made
from the next N questions: each character of the normalised question is one frame, followed by
two blank frames (about 50 frames a second of speech, the speech encoder's rate), over Gaussian
scores of standard deviation `--noise` (larger: a less certain recogniser), log-softmaxed. Prints,
per decoder: milliseconds per utterance (best of 3 passes), the ratio to greedy, and the WER
against the questions. The WERs only show that the search works on these synthetic emissions;
the recogniser's real WERs come from `allennlp tune-ctc-decoder` on recordings.
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


def emissions(text, characters, noise, generator):
    import torch

    scores = torch.randn(3 * len(text), len(characters), generator=generator) * noise
    for i, character in enumerate(text):
        scores[3 * i, characters.index(character)] += 6.0
        scores[3 * i + 1 : 3 * i + 3, 0] += 6.0
    return torch.log_softmax(scores, -1)


def best_of_3(decoder, rows, characters):
    best, out = float("inf"), None
    for _ in range(3):
        start = time.perf_counter()
        out = decoder.decode(rows, characters)
        best = min(best, time.perf_counter() - start)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--utterances", type=int, default=200)
    parser.add_argument("--noise", type=float, default=1.5)
    parser.add_argument("--beams", default="10,50")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)
    from srcframework.data.squad_file import iter_questions
    from srcframework.metrics.text_noise import wer
    from srcframework.speech.ctc_decoder import GreedyCtcDecoder
    from srcframework.speech.ctc_lexicon_decoder import LexiconBeamCtcDecoder
    from srcframework.speech.speecht5_ctc_network import CHARACTERS, normalize_transcript
    from srcframework.speech.word_lm import build_word_lm

    questions = [q.question for q in iter_questions(DATA / "squad" / "dev-v1.1.json")]
    lm_questions, texts = questions[:2000], [normalize_transcript(q) for q in questions[2000 : 2000 + args.utterances]]
    generator = torch.Generator().manual_seed(0)
    rows = [emissions(text, CHARACTERS, args.noise, generator) for text in texts]
    frames = sum(r.size(0) for r in rows) / len(rows)
    print(f"{len(rows)} utterances of {frames:.0f} frames on average (noise {args.noise}); 1 thread\n")
    print("| decoder | ms per utterance | time vs greedy | WER |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        lm = os.path.join(folder, "lm.arpa")
        build_word_lm(lm_questions, lm)
        baseline, greedy = best_of_3(GreedyCtcDecoder(), rows, CHARACTERS)
        print(f"| greedy (baseline) | {1000 * baseline / len(rows):.2f} | 1.00 | {wer(texts, greedy):.1f} |")
        for beam in (int(b) for b in args.beams.split(",")):
            decoder = LexiconBeamCtcDecoder(lm, lm_weight=1.0, word_score=0.0, beam_size=beam)
            decoder.decode(rows[:1], CHARACTERS)  # builds the trie once, outside the timing
            seconds, out = best_of_3(decoder, rows, CHARACTERS)
            print(f"| lexicon_beam, beam {beam}, LM weight 1 | {1000 * seconds / len(rows):.2f} | "
                  f"{seconds / baseline:.1f} | {wer(texts, out):.1f} |")


if __name__ == "__main__":
    main()
