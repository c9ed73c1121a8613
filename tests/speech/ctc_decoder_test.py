import pytest
import torch
from allennlp.common import Params

from srcframework.speech.ctc_decoder import CtcDecoder, GreedyCtcDecoder, greedy_transcript
from srcframework.speech.speecht5_ctc_network import CHARACTERS


def emissions(frames, characters=CHARACTERS):
    """A `T x C` log-probability matrix whose best character per frame is `frames[t]` ("" = blank)."""
    scores = torch.full((len(frames), len(characters)), -10.0)
    for t, character in enumerate(frames):
        scores[t, characters.index(character) if character else 0] = 0.0
    return torch.log_softmax(scores, -1)


def test_greedy_collapses_repeats_drops_blanks_and_squeezes_spaces():
    frames = [" ", "w", "w", "", "h", "o", "o", " ", " ", "", "i", "s", " "]
    assert greedy_transcript(emissions(frames), CHARACTERS) == "who is"
    assert greedy_transcript(emissions(["o", "", "o", "o"]), CHARACTERS) == "oo"  # a blank keeps a double letter
    assert greedy_transcript(emissions([]), CHARACTERS) == ""
    assert greedy_transcript(emissions(["", ""]), CHARACTERS) == ""


def test_greedy_is_the_default_decoder():
    decoder = CtcDecoder.from_params(Params({}))
    assert isinstance(decoder, GreedyCtcDecoder)
    rows = [emissions(["a", "", "a"]), emissions([]), emissions(["1", "9"])]
    assert decoder.decode(rows, CHARACTERS) == ["aa", "", "19"]


def test_unknown_decoder_is_a_clear_error():
    with pytest.raises(Exception, match="beam_of_light"):
        CtcDecoder.from_params(Params({"type": "beam_of_light"}))
