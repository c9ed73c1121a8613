"""
The weights of the `lexicon_beam` CTC decoder, chosen on held-out audio: the recogniser scores each
recording once, then every (LM weight, word score) pair of a grid decodes them all; the pair with
the lowest corpus WER against the typed questions wins (the first of equals, in grid order). The
greedy decoding's WER is reported beside it, so the page can say whether the language model pays
for itself. Give it held-out articles of the training source, never a test set.
"""
import itertools
import random
from collections import defaultdict
from typing import Dict, List, Optional, Sequence

import torch
from tqdm import tqdm

from srcframework.common.audio import read_valid_wav
from srcframework.common.errors import InputError
from srcframework.data.squad_src_layout import SquadSrcFolder
from srcframework.jobs.transcription import spoken_questions
from srcframework.metrics.text_noise import wer
from srcframework.speech.ctc_decoder import GreedyCtcDecoder
from srcframework.speech.ctc_lexicon_decoder import LexiconBeamCtcDecoder
from srcframework.speech.speecht5_ctc import SpeechT5CtcRecognizer


def tune_lexicon_decoder(
    folder: SquadSrcFolder,
    model_name: str,
    language_model: str,
    lm_weights: Sequence[float],
    word_scores: Sequence[float],
    beam_size: int = 50,
    limit: Optional[int] = None,
    seed: int = 0,
    batch_size: int = 8,
    progress: bool = True,
) -> dict:
    """
    The grid's WERs and the best decoder config for the `speecht5_ctc` recogniser in `model_name`
    on `folder`'s recordings (all, or `limit` drawn with `seed`).
    """
    if not lm_weights or not word_scores:
        raise InputError("tune-ctc-decoder: give at least one LM weight and one word score")
    if limit is not None and limit < 1:
        raise InputError(f"tune-ctc-decoder: limit must be at least 1, got {limit}")
    # every recording counts: a question read by several voices is several recordings to score
    join = spoken_questions(folder, several_recordings=True)
    questions = join.questions
    if not questions:
        raise InputError(f"tune-ctc-decoder: {join.fid2qid_file} lists no recording")
    if limit is not None and limit < len(questions):
        questions = sorted(random.Random(seed).sample(questions, limit), key=lambda q: q.fid)
    recognizer = SpeechT5CtcRecognizer(model_name, batch_size=batch_size)
    by_rate: Dict[int, List[int]] = defaultdict(list)
    waveforms = []
    for i, spoken in enumerate(questions):
        waveform, rate = read_valid_wav(spoken.audio, refuse_silent=True)
        waveforms.append(waveform)
        by_rate[rate].append(i)
    scores: List[torch.Tensor] = [torch.zeros(0)] * len(questions)
    bar = tqdm(total=len(questions), desc="scoring", unit="rec", disable=not progress)
    for rate, indices in by_rate.items():
        for start in range(0, len(indices), 64):
            chunk = indices[start : start + 64]
            for i, rows in zip(chunk, recognizer.log_probs([waveforms[i] for i in chunk], rate)):
                scores[i] = rows
            bar.update(len(chunk))
    bar.close()
    characters = recognizer.network.characters
    references = [spoken.question.question for spoken in questions]
    greedy = wer(references, GreedyCtcDecoder().decode(scores, characters))
    decoder = LexiconBeamCtcDecoder(language_model, beam_size=beam_size)
    grid = []
    pairs = list(itertools.product(lm_weights, word_scores))
    for lm_weight, word_score in tqdm(pairs, desc="decoding", unit="setting", disable=not progress):
        decoder.lm_weight, decoder.word_score = lm_weight, word_score
        grid.append({"lm_weight": lm_weight, "word_score": word_score, "wer": wer(references, decoder.decode(scores, characters))})
    best = min(grid, key=lambda row: row["wer"])
    return {
        "fid2qid_file": join.fid2qid_file,
        "recordings": len(questions),
        "seed": seed,
        "model_name": model_name,
        "greedy_wer": greedy,
        "grid": grid,
        "best": best,
        "decoder": {
            "type": "lexicon_beam", "language_model": language_model, "lm_weight": best["lm_weight"],
            "word_score": best["word_score"], "beam_size": beam_size,
        },
    }
