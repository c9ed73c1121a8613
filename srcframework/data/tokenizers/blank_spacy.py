from typing import List

import spacy
from allennlp.data.tokenizers import Token, Tokenizer


@Tokenizer.register("blank_spacy")
class BlankSpacyTokenizer(Tokenizer):
    """
    spaCy's rule-based tokenizer for a language, with no statistical model, so nothing needs to be
    downloaded. Tokens keep their character offsets (`idx`, `idx_end`), which span decoding needs.

    # Parameters

    language : `str`, optional (default = `"en"`)
        The spaCy language code passed to `spacy.blank`.
    lowercase : `bool`, optional (default = `False`)
        Lowercase token text (offsets still point into the original string).
    """

    def __init__(self, language: str = "en", lowercase: bool = False) -> None:
        self.language = language
        self.lowercase = lowercase
        self._nlp = spacy.blank(language)

    def tokenize(self, text: str) -> List[Token]:
        tokens = []
        for tok in self._nlp.tokenizer(text):
            if tok.is_space:
                continue
            word = tok.text.lower() if self.lowercase else tok.text
            tokens.append(Token(word, idx=tok.idx, idx_end=tok.idx + len(tok.text)))
        return tokens

    def batch_tokenize(self, texts: List[str]) -> List[List[Token]]:
        return [self.tokenize(t) for t in texts]

    def _to_params(self):
        return {"type": "blank_spacy", "language": self.language, "lowercase": self.lowercase}
