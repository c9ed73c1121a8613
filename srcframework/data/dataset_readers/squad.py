from typing import Dict, List, Optional, Tuple

from allennlp.data import DatasetReader, Field
from allennlp.data.fields import IndexField, TextField
from allennlp.data.token_indexers import SingleIdTokenIndexer, TokenIndexer
from allennlp.data.tokenizers import Token, Tokenizer

from srcframework.data.dataset_readers.squad_questions import SquadQuestionReader, char_span_to_token_span
from srcframework.data.tokenizers.blank_spacy import BlankSpacyTokenizer


def add_context_fields(
    fields: dict,
    context_tokens: List[Token],
    token_indexers: Dict[str, TokenIndexer],
    answers: List[str],
    answer_starts: Optional[List[int]],
) -> Optional[List[Tuple[int, int]]]:
    """Adds the `context` TextField and, when there is an answer, the inclusive `span_start` and
    `span_end` of the first one to `fields`. Returns the context tokens' character offsets, or None
    when the first answer is not within `context_tokens` (no instance can be made)."""
    offsets = [(t.idx, t.idx_end) for t in context_tokens]
    fields["context"] = TextField(context_tokens, token_indexers)
    if answers and answer_starts:
        start, end = char_span_to_token_span(offsets, answer_starts[0], answer_starts[0] + len(answers[0]))
        if start < 0:
            return None
        fields["span_start"] = IndexField(start, fields["context"])
        fields["span_end"] = IndexField(end, fields["context"])
    return offsets


@DatasetReader.register("squad_v1")
class SquadReader(SquadQuestionReader):
    """
    Reads SQuAD v1.1-format JSON (SQuAD, XQuAD, the NoiseQA challenge sets) into instances with a
    `context` TextField, a `question` TextField, inclusive `span_start`/`span_end` token indices of
    the first answer, and `metadata` (question id, question text, any `original_question`, every
    answer, context offsets, and any extra per-question fields of the file).

    Bad input raises a `DatasetError` that names the file and the question id. Nothing is dropped
    silently: every skip is counted and logged with its reason.

    # Parameters

    tokenizer : `Tokenizer`, optional (default = `blank_spacy`)
        Used for contexts and questions; must set token offsets. The default needs no download.
    token_indexers : `Dict[str, TokenIndexer]`, optional (default = `{"tokens": single_id}`)
    question_token_indexers : `Dict[str, TokenIndexer]`, optional (default = `token_indexers`)
        Indexers for the question alone, for a question encoder with its own vocabulary (e.g.
        `speecht5` for the `speecht5_text` encoder).
    passage_length_limit : `int`, optional
        Contexts are cut to this many tokens. A question whose answer lies past the cut is skipped
        (and counted), so use it for training data only.
    question_length_limit : `int`, optional
        Questions are cut to this many tokens.
    **kwargs
        Every parameter of `SquadQuestionReader`: `skip_invalid`, `exclude_question_ids_from`, and
        the training noise (`question_noise` online, or pre-generated `noisy_copies` drawn by id
        with `noisy_copy_weights`; `noise_seed`, `noise_batch_size`; `keep_clean` adds the noised
        questions to the clean ones instead of replacing them), and those of `DatasetReader`.
        Give noise to `dataset_reader` only, so that validation and prediction stay clean.
    """

    def __init__(
        self,
        tokenizer: Optional[Tokenizer] = None,
        token_indexers: Optional[Dict[str, TokenIndexer]] = None,
        question_token_indexers: Optional[Dict[str, TokenIndexer]] = None,
        passage_length_limit: Optional[int] = None,
        question_length_limit: Optional[int] = None,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self._tokenizer = tokenizer or BlankSpacyTokenizer()
        self._token_indexers = token_indexers or {"tokens": SingleIdTokenIndexer()}
        self._question_token_indexers = question_token_indexers or self._token_indexers
        self.passage_length_limit = passage_length_limit
        self.question_length_limit = question_length_limit

    def tokenize_context(self, context: str) -> List[Token]:
        return self._tokenizer.tokenize(context)

    def no_instance_reason(self) -> str:
        """Why `text_to_instance` returned None for a question (counted in `last_skipped`)."""
        return "answer lies beyond passage_length_limit"

    def question_fields(
        self, question: str, context_tokens: List[Token], answers: List[str], answer_starts: Optional[List[int]]
    ) -> Optional[Tuple[Dict[str, Field], dict]]:
        if self.passage_length_limit is not None:
            context_tokens = context_tokens[: self.passage_length_limit]
        question_tokens = self._tokenizer.tokenize(question)
        if self.question_length_limit is not None:
            question_tokens = question_tokens[: self.question_length_limit]
        fields = {"question": TextField(question_tokens, self._question_token_indexers)}
        offsets = add_context_fields(fields, context_tokens, self._token_indexers, answers, answer_starts)
        if offsets is None:
            return None
        return fields, {"context_offsets": offsets}
