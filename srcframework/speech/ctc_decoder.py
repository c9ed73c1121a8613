"""How CTC log-probabilities over characters become a transcript: the `CtcDecoder` abstraction and
its default, greedy decoding."""
import itertools
from typing import List, Sequence

import torch
from allennlp.common import Registrable


def greedy_transcript(log_probs: torch.Tensor, characters: Sequence[str]) -> str:
    """The best character of each frame of a `T x C` matrix, repeats collapsed, blanks (id 0)
    dropped, whitespace collapsed."""
    best = log_probs.argmax(-1).tolist()
    collapsed = [token for token, _ in itertools.groupby(best) if token != 0]
    return " ".join("".join(characters[t] for t in collapsed).split())


class CtcDecoder(Registrable):
    """
    Turns each utterance's `T x C` CTC scores over `characters` (id 0 the blank, `" "` the word
    separator) into a transcript. The scores are log-probabilities (or logits, for decoders that
    only compare them within a frame, as greedy decoding does).
    """

    default_implementation = "greedy"

    def decode(self, log_probs: List[torch.Tensor], characters: Sequence[str]) -> List[str]:
        raise NotImplementedError


@CtcDecoder.register("greedy")
class GreedyCtcDecoder(CtcDecoder):
    """
    The best character of each frame, repeats collapsed, blanks dropped, whitespace collapsed.
    No parameters.
    """

    def decode(self, log_probs: List[torch.Tensor], characters: Sequence[str]) -> List[str]:
        return [greedy_transcript(rows, characters) for rows in log_probs]
