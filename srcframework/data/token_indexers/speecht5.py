from typing import Dict, List, Optional

import torch
from allennlp.common.checks import ConfigurationError
from allennlp.common.util import pad_sequence_to_length
from allennlp.data.token_indexers import TokenIndexer
from allennlp.data.tokenizers import Token
from allennlp.data.vocabulary import Vocabulary


def detokenize(tokens: List[Token]) -> str:
    """The text of `tokens`: a space between two tokens unless their offsets (`idx`, `idx_end`)
    show they were written together ("it" "?" from "it?"); a space everywhere without offsets."""
    pieces = []
    for i, token in enumerate(tokens):
        if i > 0:
            previous = tokens[i - 1]
            end = previous.idx_end
            if end is None and previous.idx is not None:
                end = previous.idx + len(previous.text)
            if token.idx is None or end is None or token.idx != end:
                pieces.append(" ")
        pieces.append(token.text)
    return "".join(pieces)


@TokenIndexer.register("speecht5")
class SpeechT5TokenIndexer(TokenIndexer):
    """
    Indexes a question for SpeechT5's text encoder (`speecht5_text` field encoder) with the
    model's own tokenizer (`SpeechT5Tokenizer`: sentencepiece characters, `▁` for a space,
    `</s>` at the end). AllenNLP's `pretrained_transformer` indexer cannot: its tokenizer finds
    the special tokens by encoding "a" and "b" and expects different first pieces, but every
    SpeechT5 encoding of a word starts with `▁`.

    Takes the words of any tokenizer (such as the reader's `blank_spacy`), puts their text back
    together (spaces where the offsets show them, or between every two tokens when there are no
    offsets) and tokenizes it whole. Gives `{"token_ids": ..., "mask": ...}` padded with the
    tokenizer's pad id and False.

    # Parameters

    model_name : `str`
        A folder holding the tokenizer (spm_char.model + tokenizer_config.json) or a hub name,
        such as `"microsoft/speecht5_asr"`.
    lowercase : `bool`, optional (default = `False`)
        Lowercase the text first.
    max_length : `int`, optional
        Longest sequence kept, `</s>` included (SpeechT5's positions stop at
        `max_text_positions`, 450 for the released models).
    token_min_padding_length : `int`, optional (default = `0`)
    """

    def __init__(
        self,
        model_name: str,
        lowercase: bool = False,
        max_length: Optional[int] = None,
        token_min_padding_length: int = 0,
    ) -> None:
        super().__init__(token_min_padding_length)
        from allennlp.common import cached_transformers

        try:
            self._tokenizer = cached_transformers.get_tokenizer(model_name)
        except (OSError, ValueError) as error:
            raise ConfigurationError(
                f"cannot load a tokenizer from {model_name!r}: it is neither a folder holding one nor a "
                f"hub model available offline ({error})"
            ) from None
        if max_length is not None and max_length < 2:
            raise ConfigurationError(f"max_length must be at least 2 (a character and </s>), got {max_length}")
        self.model_name = model_name
        self.lowercase = lowercase
        self.max_length = max_length

    def count_vocab_items(self, token: Token, counter: Dict[str, Dict[str, int]]):
        # the ids come from the pretrained tokenizer, not from an AllenNLP vocabulary
        pass

    def text_to_ids(self, text: str) -> List[int]:
        if self.lowercase:
            text = text.lower()
        truncate = self.max_length is not None
        return self._tokenizer(text, add_special_tokens=True, truncation=truncate, max_length=self.max_length)[
            "input_ids"
        ]

    def tokens_to_indices(self, tokens: List[Token], vocabulary: Vocabulary) -> Dict[str, List]:
        ids = self.text_to_ids(detokenize(tokens))
        return {"token_ids": ids, "mask": [True] * len(ids)}

    def get_empty_token_list(self) -> Dict[str, List]:
        return {"token_ids": [], "mask": []}

    def as_padded_tensor_dict(
        self, tokens: Dict[str, List], padding_lengths: Dict[str, int]
    ) -> Dict[str, torch.Tensor]:
        pad_id = self._tokenizer.pad_token_id
        return {
            "token_ids": torch.LongTensor(
                pad_sequence_to_length(tokens["token_ids"], padding_lengths["token_ids"], lambda: pad_id)
            ),
            "mask": torch.BoolTensor(pad_sequence_to_length(tokens["mask"], padding_lengths["mask"], lambda: False)),
        }

    def __eq__(self, other) -> bool:
        if isinstance(other, SpeechT5TokenIndexer):
            return (self.model_name, self.lowercase, self.max_length, self._token_min_padding_length) == (
                other.model_name,
                other.lowercase,
                other.max_length,
                other._token_min_padding_length,
            )
        return NotImplemented
