import pytest
import torch
from allennlp.common import Params

from srcframework.speech.ctc_decoder import CtcDecoder, GreedyCtcDecoder
from srcframework.speech.ctc_lexicon_decoder import LexiconBeamCtcDecoder
from srcframework.speech.speecht5_ctc_network import CHARACTERS
from srcframework.speech.word_lm import arpa_words, build_word_lm


def spoken(text: str, noise: float = 0.5, seed: int = 0) -> torch.Tensor:
    """CTC log-probabilities whose greedy reading is `text`: each character's frame, then two
    blank frames, over random scores."""
    generator = torch.Generator().manual_seed(seed)
    scores = torch.randn(3 * len(text), len(CHARACTERS), generator=generator) * noise
    for i, character in enumerate(text):
        scores[3 * i, CHARACTERS.index(character)] += 6.0
        scores[3 * i + 1 : 3 * i + 3, 0] += 6.0
    return torch.log_softmax(scores, -1)


def test_the_word_lm_mends_what_greedy_decoding_misspells(squad_dev_lm):
    decoder = CtcDecoder.from_params(Params({"type": "lexicon_beam", "language_model": squad_dev_lm, "lm_weight": 1.0}))
    assert isinstance(decoder, LexiconBeamCtcDecoder)
    heard = [spoken("what is the nane of the rivr"), spoken("in what yeer did the war end")]
    assert GreedyCtcDecoder().decode(heard, CHARACTERS) == ["what is the nane of the rivr", "in what yeer did the war end"]
    assert decoder.decode(heard, CHARACTERS) == ["what is the name of the river", "in what year did the war end"]


def test_transcripts_hold_only_lexicon_words(squad_dev_lm):
    decoder = LexiconBeamCtcDecoder(squad_dev_lm, lm_weight=0.5, word_score=1.0, beam_size=10)
    words = set(arpa_words(squad_dev_lm))
    out = decoder.decode([spoken("zqxv blorft what", seed=s) for s in range(3)], CHARACTERS)
    assert all(t.split() and set(t.split()) <= words for t in out)
    assert decoder.decode([torch.zeros(0, len(CHARACTERS))], CHARACTERS) == [""]


def test_the_lm_weight_trades_acoustics_against_the_lm(tmp_path):
    lm = str(tmp_path / "lm.arpa")
    build_word_lm(["the cat sat"] * 20 + ["the cap sat"], lm, order=2, smoothing="wb")
    heard = [spoken("the cap sat", noise=0.0)]
    assert LexiconBeamCtcDecoder(lm, lm_weight=0.0).decode(heard, CHARACTERS) == ["the cap sat"]
    assert LexiconBeamCtcDecoder(lm, lm_weight=5.0).decode(heard, CHARACTERS) == ["the cat sat"]


def test_bad_settings_are_one_line_errors(squad_dev_lm, tmp_path):
    with pytest.raises(ValueError, match="beam_size must be at least 1"):
        LexiconBeamCtcDecoder(squad_dev_lm, beam_size=0)
    with pytest.raises(ValueError, match="beam_threshold must be positive"):
        LexiconBeamCtcDecoder(squad_dev_lm, beam_threshold=0)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        LexiconBeamCtcDecoder(str(tmp_path / "none.arpa"))
    decoder = LexiconBeamCtcDecoder(squad_dev_lm)
    with pytest.raises(ValueError, match="no word separator"):
        decoder.decode([torch.zeros(2, 3)], ["<blank>", "a", "b"])
    with pytest.raises(ValueError, match=r"scores must be T x 39"):
        decoder.decode([torch.zeros(2, 5)], CHARACTERS)
    with pytest.raises(ValueError, match="no word of .* can be spelled"):
        decoder.decode([torch.zeros(2, 3)], ["<blank>", " ", "\u00e9"])
