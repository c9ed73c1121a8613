import logging
from collections import Counter
from dataclasses import replace
from typing import Dict, Iterable, List, Optional, Tuple

from allennlp.common.checks import ConfigurationError
from allennlp.common.file_utils import cached_path
from allennlp.data import DatasetReader, Field, Instance
from allennlp.data.fields import MetadataField
from allennlp.data.tokenizers import Token
from more_itertools import chunked

from srcframework.data.errors import DatasetError
from srcframework.data.squad_file import SquadQuestion, iter_questions, load_squad_json
from srcframework.noise.noise_source import NoiseSource

logger = logging.getLogger(__name__)


def char_span_to_token_span(offsets: List[Tuple[int, int]], start: int, end: int) -> Tuple[int, int]:
    """Smallest inclusive token span covering characters [start, end); (-1, -1) when none does."""
    first = next((i for i, (s, e) in enumerate(offsets) if e > start), -1)
    last = next((i for i in range(len(offsets) - 1, -1, -1) if offsets[i][0] < end), -1)
    if first == -1 or last < first:
        return -1, -1
    return first, last


def log_read(source: str, kept: int, skipped: Counter, what: str = "questions") -> None:
    """One log line for a finished read: a warning with every skip reason when any was skipped."""
    if skipped:
        reasons = "; ".join(f"{n} {reason}" for reason, n in skipped.most_common())
        logger.warning("%s: read %d %s, skipped %d (%s)", source, kept, what, sum(skipped.values()), reasons)
    else:
        logger.info("%s: read %d %s", source, kept, what)


class SquadQuestionReader(DatasetReader):
    """
    The base of the readers of SQuAD v1.1-format files (`squad_v1`, `src_transformer_squad`): it
    reads the file question by question, leaves out held-out ids, applies training noise, counts
    and logs every skip, and builds each instance's metadata; a subclass gives the fields
    (`question_fields`), `tokenize_context` and `no_instance_reason`. So noise augmentation and
    the metadata are the same in every SQuAD-format reader.

    Bad input raises a `DatasetError` that names the file and the question id.

    # Parameters

    skip_invalid : `bool`, optional (default = `False`)
        Skip (and count) invalid questions instead of raising.
    exclude_question_ids_from : `str`, optional
        A SQuAD-format file; questions whose ids appear in it are left out (and counted). Used to
        hold XQuAD's paragraphs out of SQuAD dev.
    question_noise : `NoiseSource`, optional
        Training augmentation: questions go through this noise source (or a weighted `mix`) as
        they are read, in batches of `noise_batch_size`; the clean text stays in metadata as
        `original_question`. Read `n` (counting from 0) uses seed `noise_seed + n`, so a lazily
        re-read training set gets fresh noise each epoch. Give it to `dataset_reader` only and set
        a `validation_dataset_reader` without it, so that validation and prediction stay clean.
    noise_seed : `int`, optional (default = `0`)
    noise_batch_size : `int`, optional (default = `64`)
    noisy_copies : `Dict[str, str]`, optional
        Training augmentation from pre-generated noisy copies of the training file (name -> a
        challenge set written by `allennlp noise` on it): in each read (epoch), each question is
        drawn by its id either clean or as one of its noisy versions, with `noisy_copy_weights`
        (see the `noisy_copies` noise source). Takes the place of `question_noise`; like it, give
        it to `dataset_reader` only, so that validation stays clean.
    noisy_copy_weights : `Dict[str, float]`, optional (default = equal weights)
        Name -> weight, for `"clean"` and each copy.
    keep_clean : `bool`, optional (default = `False`)
        With `question_noise` or `noisy_copies`: every question is also read clean, so that a read
        holds each clean question and, right after it, its noised version (only when the noise
        changed its text). The noise then adds training data instead of replacing it, as in
        NoiseQA's augmentation; an epoch grows by the share of questions the noise changed.
    """

    def __init__(
        self,
        skip_invalid: bool = False,
        exclude_question_ids_from: Optional[str] = None,
        question_noise: Optional[NoiseSource] = None,
        noise_seed: int = 0,
        noise_batch_size: int = 64,
        noisy_copies: Optional[Dict[str, str]] = None,
        noisy_copy_weights: Optional[Dict[str, float]] = None,
        keep_clean: bool = False,
        **kwargs,
    ) -> None:
        super().__init__(manual_distributed_sharding=True, manual_multiprocess_sharding=True, **kwargs)
        if noisy_copies:
            if question_noise is not None:
                raise ConfigurationError("give the reader `question_noise` or `noisy_copies`, not both")
            question_noise = NoiseSource.by_name("noisy_copies")(copies=noisy_copies, weights=noisy_copy_weights)
        elif noisy_copy_weights:
            raise ConfigurationError("`noisy_copy_weights` needs `noisy_copies`")
        if keep_clean and question_noise is None:
            raise ConfigurationError("`keep_clean` needs `question_noise` or `noisy_copies`")
        if noise_batch_size < 1:
            raise ConfigurationError(f"noise_batch_size must be at least 1, not {noise_batch_size}")
        self.skip_invalid = skip_invalid
        self.exclude_question_ids_from = exclude_question_ids_from
        self.question_noise = question_noise
        self.noise_seed = noise_seed
        self.noise_batch_size = noise_batch_size
        self.keep_clean = keep_clean
        self._reads = 0
        self.last_skipped: Counter = Counter()

    def tokenize_context(self, context: str) -> List[Token]:
        raise NotImplementedError

    def no_instance_reason(self) -> str:
        """Why `text_to_instance` returned None for a question (counted in `last_skipped`)."""
        raise NotImplementedError

    def question_fields(
        self, question: str, context_tokens: List[Token], answers: List[str], answer_starts: Optional[List[int]]
    ) -> Optional[Tuple[Dict[str, Field], dict]]:
        """The subclass's fields for one question, and its own metadata entries (at least
        `context_offsets`); None when no instance can be made (counted with `no_instance_reason`)."""
        raise NotImplementedError

    def text_to_instance(  # type: ignore
        self,
        question: str,
        context: str,
        answers: Optional[List[str]] = None,
        answer_starts: Optional[List[int]] = None,
        question_id: Optional[str] = None,
        context_tokens: Optional[List[Token]] = None,
        extra: Optional[dict] = None,
    ) -> Optional[Instance]:
        """One question's instance: the subclass's `question_fields`, and a `metadata` field with
        `id`, `question`, `original_question` (taken out of `extra`), `context`, `answers`,
        `extra` and the subclass's entries. `context_tokens` saves tokenising a shared context."""
        if context_tokens is None:
            context_tokens = self.tokenize_context(context)
        answers = answers or []
        made = self.question_fields(question, context_tokens, answers, answer_starts)
        if made is None:
            return None
        fields, own_metadata = made
        extra = dict(extra or {})
        metadata = {
            "id": question_id,
            "question": question,
            "original_question": extra.pop("original_question", None),
            "context": context,
            "answers": answers,
            "extra": extra,
            **own_metadata,
        }
        fields["metadata"] = MetadataField(metadata)
        return Instance(fields)

    def _excluded_ids(self) -> set:
        if not self.exclude_question_ids_from:
            return set()
        path = cached_path(self.exclude_question_ids_from)
        return {q.qid for q in iter_questions(path, skip_invalid=True)}

    def _read(self, file_path: str) -> Iterable[Instance]:
        try:
            local_path = cached_path(file_path)
        except FileNotFoundError:
            raise DatasetError(file_path, "file not found") from None
        dataset = load_squad_json(local_path)
        excluded = self._excluded_ids()
        skipped: Counter = Counter()
        last_context, context_tokens = None, None
        kept = 0
        questions = iter_questions(file_path, dataset, self.skip_invalid, skipped)
        questions = self.shard_iterable(questions)
        if self.question_noise is not None:
            questions = self._noised(questions, self.noise_seed + self._reads)
        self._reads += 1
        for question in questions:
            if question.qid in excluded:
                skipped["id listed in exclude_question_ids_from"] += 1
                continue
            if question.context is not last_context:
                last_context, context_tokens = question.context, self.tokenize_context(question.context)
            instance = self.text_to_instance(
                question.question,
                question.context,
                question.answers,
                question.answer_starts,
                question_id=question.qid,
                context_tokens=context_tokens,
                extra=dict(question.extra, title=question.title),
            )
            if instance is None:
                skipped[self.no_instance_reason()] += 1
                continue
            kept += 1
            yield instance
        self.last_skipped = skipped
        log_read(file_path, kept, skipped)

    def _noised(self, questions: Iterable[SquadQuestion], seed: int) -> Iterable[SquadQuestion]:
        """Noise questions in batches; the clean text moves to `original_question`. With
        `keep_clean`, each clean question comes first, then its noised version if it differs."""
        for batch in chunked(questions, self.noise_batch_size):
            noised = self.question_noise.noise([q.question for q in batch], seed=seed, ids=[q.qid for q in batch])
            for question, text in zip(batch, noised):
                if self.keep_clean:
                    yield question
                    if text == question.question:
                        continue
                extra = dict(question.extra)
                extra.setdefault("original_question", question.question)
                yield replace(question, question=text, extra=extra)
