import contextlib
import math
import os
import sys
from typing import Dict, List, Sequence, Tuple

import torch

from srcframework.common.errors import InputError
from srcframework.speech.ctc_decoder import CtcDecoder
from srcframework.speech.engines import EngineNotFound
from srcframework.speech.word_lm import arpa_words

INSTALL_HINT = "flashlight-text is missing: pip install flashlight-text (make install does)"
SEPARATOR = "|"


@contextlib.contextmanager
def quiet_stderr():
    """Standard error (file descriptor 2) sent to /dev/null: KenLM draws a progress bar there while
    it reads an ARPA file, which would break the callers' own progress bars. Errors still arrive
    as Python exceptions."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


@CtcDecoder.register("lexicon_beam")
class LexiconBeamCtcDecoder(CtcDecoder):
    """
    Beam-search CTC decoding with a word language model (flashlight-text's `LexiconDecoder` with
    KenLM): transcripts are sequences of the model's words, each spelled in the recogniser's
    characters and ended by the word separator. The lexicon is the model's unigrams (without
    `<s>`, `</s>`, `<unk>`); words with characters the recogniser lacks are left out. A hypothesis
    scores its CTC log-probability + `lm_weight` x LM log-probability + `word_score` per word.
    The scores given to `decode` must be log-probabilities (log-softmax over characters).

    # Parameters

    language_model : `str`
        An ARPA file (`allennlp word-lm` writes one from a SQuAD file's questions).
    lm_weight : `float`, optional (default = `1.0`)
    word_score : `float`, optional (default = `0.0`)
    beam_size : `int`, optional (default = `50`)
        Hypotheses kept after each frame.
    beam_threshold : `float`, optional (default = `25.0`)
        Hypotheses scoring more than this below the best are dropped.
    """

    def __init__(
        self,
        language_model: str,
        lm_weight: float = 1.0,
        word_score: float = 0.0,
        beam_size: int = 50,
        beam_threshold: float = 25.0,
    ) -> None:
        if beam_size < 1:
            raise InputError(f"lexicon_beam: beam_size must be at least 1, got {beam_size}")
        if beam_threshold <= 0:
            raise InputError(f"lexicon_beam: beam_threshold must be positive, got {beam_threshold}")
        self.language_model = language_model
        self.lm_weight = lm_weight
        self.word_score = word_score
        self.beam_size = beam_size
        self.beam_threshold = beam_threshold
        self.words = arpa_words(language_model)
        self._built: Dict[Tuple[str, ...], tuple] = {}

    def _search(self, characters: Sequence[str]) -> tuple:
        """(LM, trie, word dictionary, separator id) for `characters`, built once."""
        key = tuple(characters)
        if key in self._built:
            return self._built[key]
        try:
            from flashlight.lib.text.decoder import SmearingMode, Trie
            from flashlight.lib.text.decoder.kenlm import KenLM
            from flashlight.lib.text.dictionary import Dictionary
        except ImportError:
            raise EngineNotFound(INSTALL_HINT) from None
        if " " not in characters[1:]:
            raise InputError("lexicon_beam: the recogniser's characters hold no word separator ' '")
        known = set(characters[1:]) - {" "}
        lexicon = [word for word in self.words if set(word) <= known]
        if not lexicon:
            raise InputError(f"lexicon_beam: no word of {self.language_model} can be spelled in the recogniser's characters")
        tokens = Dictionary([SEPARATOR if c == " " else c for c in characters])
        separator = tokens.get_index(SEPARATOR)
        word_ids = Dictionary(lexicon + ["<unk>"])
        word_ids.set_default_index(word_ids.get_index("<unk>"))
        with quiet_stderr():
            lm = KenLM(self.language_model, word_ids)
        trie = Trie(len(characters), separator)
        start = lm.start(False)
        for word in lexicon:
            index = word_ids.get_index(word)
            _, score = lm.score(start, index)
            trie.insert([tokens.get_index(c) for c in word] + [separator], index, score)
        trie.smear(SmearingMode.MAX)
        self._built[key] = (lm, trie, word_ids, separator)
        return self._built[key]

    def decode(self, log_probs: List[torch.Tensor], characters: Sequence[str]) -> List[str]:
        from flashlight.lib.text.decoder import CriterionType, LexiconDecoder, LexiconDecoderOptions

        lm, trie, word_ids, separator = self._search(characters)
        options = LexiconDecoderOptions(
            beam_size=self.beam_size, beam_size_token=len(characters), beam_threshold=self.beam_threshold,
            lm_weight=self.lm_weight, word_score=self.word_score, unk_score=-math.inf, sil_score=0.0,
            log_add=False, criterion_type=CriterionType.CTC,
        )
        decoder = LexiconDecoder(options, trie, lm, separator, 0, word_ids.get_index("<unk>"), [], False)
        transcripts = []
        for rows in log_probs:
            if rows.dim() != 2 or rows.size(1) != len(characters):
                raise InputError(f"lexicon_beam: scores must be T x {len(characters)}, got {tuple(rows.shape)}")
            if rows.size(0) == 0:
                transcripts.append("")
                continue
            emissions = rows.detach().to("cpu", torch.float32).contiguous()
            best = decoder.decode(emissions.data_ptr(), emissions.size(0), emissions.size(1))
            transcripts.append(" ".join(word_ids.get_entry(i) for i in best[0].words if i >= 0) if best else "")
        return transcripts
