from dataclasses import replace
from typing import Any, Dict, List, Optional, Tuple

from allennlp.data import DatasetReader, Field
from allennlp.data.fields import IndexField, ListField, TextField
from allennlp.data.token_indexers import PretrainedTransformerIndexer
from allennlp.data.tokenizers import PretrainedTransformerTokenizer, Token

from srcframework.data.dataset_readers.squad_questions import SquadQuestionReader, char_span_to_token_span


def window_starts(num_context: int, space: int, stride: int, max_windows: int) -> List[int]:
    """First context wordpiece of each window: windows of `space` wordpieces, consecutive windows
    sharing `stride` of them, at most `max_windows` windows."""
    starts = [0]
    while starts[-1] + space < num_context and len(starts) < max_windows:
        starts.append(starts[-1] + space - stride)
    return starts


@DatasetReader.register("src_transformer_squad")
class TransformerSquadReader(SquadQuestionReader):
    """
    Reads SQuAD v1.1-format JSON for a BERT-style model: each question becomes ONE instance
    holding every window `[CLS] question [SEP] context-slice [SEP]` of its context (a sliding
    window over the context's wordpieces), so that a model scores all windows of a question in one
    forward pass and metrics count questions, not windows.

    Fields:

    - `windows`: `ListField` of `TextField`s, one per window (wordpieces with type ids).
    - `span_start`, `span_end` (when the question has answers): `ListField`s of `IndexField`s, the
      inclusive window positions of the first answer, or -1 in a window that does not hold the
      whole answer. Padded (absent) windows are -1 as well.
    - `metadata`: `id`, `question`, `original_question`, `context`, `answers`, `extra` (as
      `squad_v1`), `context_offsets` (character span of each context wordpiece) and `windows`: for
      each window `(first context wordpiece, its position in the window, number of context
      wordpieces)`, so window position `p` is context wordpiece `first + p - position`.

    Bad input raises a `DatasetError` naming the file and question id; every skip is counted
    (`last_skipped`) and logged with its reason.

    # Parameters

    transformer_model_name : `str`
        A Hugging Face model name or local directory (its tokenizer is used).
    length_limit : `int`, optional (default = `256`)
        Wordpieces per window, special tokens and question included.
    stride : `int`, optional (default = `128`)
        Context wordpieces that consecutive windows share. Must be smaller than the context room of
        a window (`length_limit - max_query_length - special tokens`).
    max_query_length : `int`, optional (default = `64`)
        Questions are cut to this many wordpieces.
    max_windows : `int`, optional (default = `8`)
        At most this many windows per question; the rest of a very long context is dropped. With the
        defaults 8 windows cover at least 189 + 7 x 61 = 616 context wordpieces (every SQuAD v1.1
        dev context but a handful).
    require_answer_in_windows : `bool`, optional (default = `False`)
        Skip (and count) questions whose first answer lies in none of the kept windows (they give
        no training signal). Use it for training data only: in evaluation such a question must
        count as wrong.
    tokenizer_kwargs : `Dict[str, Any]`, optional
        Passed to the Hugging Face tokenizer.
    **kwargs
        Every parameter of `SquadQuestionReader` (`skip_invalid`, `exclude_question_ids_from`,
        and the training noise: `question_noise`, `noisy_copies`, `noisy_copy_weights`,
        `noise_seed`, `noise_batch_size`, `keep_clean`), exactly as in `squad_v1`, and those of
        `DatasetReader`.
    """

    def __init__(
        self,
        transformer_model_name: str,
        length_limit: int = 256,
        stride: int = 128,
        max_query_length: int = 64,
        max_windows: int = 8,
        require_answer_in_windows: bool = False,
        tokenizer_kwargs: Optional[Dict[str, Any]] = None,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.transformer_model_name = transformer_model_name
        self._tokenizer = PretrainedTransformerTokenizer(
            transformer_model_name, add_special_tokens=False, tokenizer_kwargs=tokenizer_kwargs
        )
        self._token_indexers = {
            "tokens": PretrainedTransformerIndexer(transformer_model_name, tokenizer_kwargs=tokenizer_kwargs)
        }
        self.length_limit = length_limit
        self.stride = stride
        self.max_query_length = max_query_length
        self.max_windows = max_windows
        room = length_limit - max_query_length - self._tokenizer.num_special_tokens_for_pair()
        if stride < 0 or stride >= room:
            raise ValueError(
                f"stride {stride} must be >= 0 and smaller than the context room of a window "
                f"({room} = length_limit {length_limit} - max_query_length {max_query_length} - special tokens)"
            )
        if max_windows < 1:
            raise ValueError(f"max_windows must be at least 1, not {max_windows}")
        self.require_answer_in_windows = require_answer_in_windows

    def no_instance_reason(self) -> str:
        return f"answer lies in none of the first {self.max_windows} windows"

    def _tokenize(self, text: str, type_id: Optional[int]) -> List[Token]:
        """Wordpieces with character offsets (`idx`, `idx_end`) and the type id of their side of
        the pair; pieces that cover no character are dropped."""
        tokens = [t for t in self._tokenizer.tokenize(text) if t.idx is not None]
        return tokens if type_id is None else [replace(t, type_id=type_id) for t in tokens]

    def tokenize_context(self, context: str) -> List[Token]:
        return self._tokenize(context, self._tokenizer.sequence_pair_second_token_type_id)

    def _windows(self, question_tokens: List[Token], context_tokens: List[Token]) -> List[Tuple[List[Token], int, int, int]]:
        """(window wordpieces, first context wordpiece, its window position, context count) of
        each window (the pieces are assembled here, as `add_special_tokens` would, without its
        deep copies)."""
        tokenizer = self._tokenizer
        room = self.length_limit - len(question_tokens) - tokenizer.num_special_tokens_for_pair()
        prefix = tokenizer.sequence_pair_start_tokens + question_tokens + tokenizer.sequence_pair_mid_tokens
        windows = []
        for start in window_starts(len(context_tokens), room, self.stride, self.max_windows):
            piece = context_tokens[start : start + room]
            windows.append((prefix + piece + tokenizer.sequence_pair_end_tokens, start, len(prefix), len(piece)))
        return windows

    def question_fields(
        self, question: str, context_tokens: List[Token], answers: List[str], answer_starts: Optional[List[int]]
    ) -> Optional[Tuple[Dict[str, Field], dict]]:
        question_tokens = self._tokenize(question, self._tokenizer.sequence_pair_first_token_type_id)
        question_tokens = question_tokens[: self.max_query_length]
        offsets = [(t.idx, t.idx_end) for t in context_tokens]
        windows = self._windows(question_tokens, context_tokens)
        text_fields = [TextField(tokens, self._token_indexers) for tokens, _, _, _ in windows]
        fields = {"windows": ListField(text_fields)}
        if answers and answer_starts:
            first, last = char_span_to_token_span(offsets, answer_starts[0], answer_starts[0] + len(answers[0]))
            starts, ends = [], []
            for (_, start, position, count), text_field in zip(windows, text_fields):
                inside = first >= 0 and start <= first and last < start + count
                starts.append(IndexField(first - start + position if inside else -1, text_field))
                ends.append(IndexField(last - start + position if inside else -1, text_field))
            if self.require_answer_in_windows and all(s.sequence_index < 0 for s in starts):
                return None
            fields["span_start"] = ListField(starts)
            fields["span_end"] = ListField(ends)
        windows_metadata = [(start, position, count) for _, start, position, count in windows]
        return fields, {"context_offsets": offsets, "windows": windows_metadata}
