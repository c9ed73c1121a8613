import logging
import os
from collections import Counter
from dataclasses import replace
from typing import Dict, Iterable, List, Optional, Tuple

from allennlp.common.checks import ConfigurationError
from allennlp.common.file_utils import cached_path
from allennlp.data import DatasetReader, Field, Instance
from allennlp.data.fields import MetadataField
from allennlp.data.tokenizers import Token
from more_itertools import chunked

from srcframework.data.article_split import article_key, check_split_options, held_out_titles
from srcframework.data.errors import DatasetError
from srcframework.data.noise_schedule import NoiseSchedule, NoiseScheduleStep, epoch_seed
from srcframework.data.squad_file import SquadQuestion, iter_questions, load_squad_json
from srcframework.data.noise_source import NoiseSource, question_rng

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
        `original_question`. The noise of epoch `e` (counting from 0) is drawn with the seed
        `epoch_seed(noise_seed, e)`, so a lazily re-read training set gets fresh noise each epoch,
        and a run stopped and resumed with `--recover` reads what a run straight through reads.
        The trainer tells the reader its epoch through the `reader_epoch` callback; without it,
        the reader counts its reads as epochs (and says so once in the log). Give it to
        `dataset_reader` only and set a `validation_dataset_reader` without it, so that
        validation and prediction stay clean.
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
        With a `noise_schedule`, the noisy version is added whenever the schedule draws one,
        changed or not, so that the epoch's length depends on the draw alone.
    noise_schedule : `List[NoiseScheduleStep]`, optional
        Epoch -> the share of questions that get a noisy version, and with `noisy_copies` the
        weights of the copies (see `NoiseScheduleStep`): for example
        `[{"from_epoch": 0, "share": 0.5}, {"from_epoch": 8, "share": 1.0}]`. Whether a question
        gets a noisy version depends only on `(noise_seed, epoch, question id)`. Takes the place
        of `noisy_copy_weights`. Without `question_noise` or `noisy_copies`, a question drawn for
        a noisy version is read a second time clean (needs `keep_clean`): the clean twin of a
        noise-trained model, reading the same number of instances in every epoch.
    articles : `str`, optional (default = `"all"`)
        `"train"` leaves out the articles held out for validation, `"held_out"` reads only them
        (`srcframework.data.article_split`): the validation split of a config is whole articles
        of its training source, never a test set.
    held_out_share : `float`, optional (default = `0.1`)
        The share of the questions (after `exclude_question_ids_from`) in held-out articles.
    held_out_seed : `int`, optional (default = `0`)
        The seed of the choice of held-out articles.
    source_file : `str`, optional
        The training source. When given, `articles` and `exclude_question_ids_from` apply only
        to reading this file; any other file is read whole. A config's validation reader is
        also the reader that `allennlp evaluate`, `predict`, `cascade` and `compare` use with its
        archive, so a test set read that way keeps every question.
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
        noise_schedule: Optional[List[NoiseScheduleStep]] = None,
        articles: str = "all",
        held_out_share: float = 0.1,
        held_out_seed: int = 0,
        source_file: Optional[str] = None,
        **kwargs,
    ) -> None:
        super().__init__(manual_distributed_sharding=True, manual_multiprocess_sharding=True, **kwargs)
        check_split_options(articles, held_out_share)
        if noise_schedule is not None:
            if noisy_copy_weights:
                raise ConfigurationError("give `noisy_copy_weights` or `noise_schedule` (whose steps hold the weights), not both")
            if noisy_copies is None and question_noise is None and not keep_clean:
                raise ConfigurationError("a `noise_schedule` without noise reads drawn questions clean a second time: it needs `keep_clean`")
            self.schedule: Optional[NoiseSchedule] = NoiseSchedule(noise_schedule, sorted(noisy_copies or {}))
        else:
            self.schedule = None
        if noisy_copies:
            if question_noise is not None:
                raise ConfigurationError("give the reader `question_noise` or `noisy_copies`, not both")
            question_noise = NoiseSource.by_name("noisy_copies")(copies=noisy_copies, weights=noisy_copy_weights)
        elif noisy_copy_weights:
            raise ConfigurationError("`noisy_copy_weights` needs `noisy_copies`")
        if keep_clean and question_noise is None and self.schedule is None:
            raise ConfigurationError("`keep_clean` needs `question_noise` or `noisy_copies`")
        if noise_batch_size < 1:
            raise ConfigurationError(f"noise_batch_size must be at least 1, not {noise_batch_size}")
        self.skip_invalid = skip_invalid
        self.exclude_question_ids_from = exclude_question_ids_from
        self.question_noise = question_noise
        self.noise_seed = noise_seed
        self.noise_batch_size = noise_batch_size
        self.keep_clean = keep_clean
        self.noise_schedule = noise_schedule
        self.articles = articles
        self.held_out_share = held_out_share
        self.held_out_seed = held_out_seed
        self.source_file = source_file
        # set by the `reader_epoch` trainer callback; None: reads are counted as epochs
        self.epoch: Optional[int] = None
        self._reads = 0
        self._warned_epoch = False
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
        if self._is_source(file_path, local_path):
            excluded = self._excluded_ids()
            dataset, held_out = self._split_articles(dataset, excluded)
        else:  # another file than the training source (a test set): read whole
            excluded, held_out = set(), set()
            if self.articles == "train":
                logger.warning("%s is not the reader's source_file %s: it is read whole, and no articles are held out of it "
                               "(set source_file to it to train on its training articles)", file_path, self.source_file)
        skipped: Counter = Counter()
        last_context, context_tokens = None, None
        kept = 0
        questions = iter_questions(file_path, dataset, self.skip_invalid, skipped)
        questions = self._without_excluded(questions, excluded, skipped)
        questions = self.shard_iterable(questions)
        epoch = self._current_epoch()
        if self.schedule is not None:
            questions = self._scheduled(questions, epoch)
        elif self.question_noise is not None:
            questions = self._noised(questions, epoch_seed(self.noise_seed, epoch))
        self._reads += 1
        for question in questions:
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
        if held_out:
            logger.info("%s: articles %r, %d held-out articles (share %s, seed %d)", file_path, self.articles, len(held_out), self.held_out_share, self.held_out_seed)

    def _is_source(self, file_path: str, local_path: str) -> bool:
        """Whether the split and the exclusion apply to this file (always, without `source_file`).
        Nothing is fetched: a URL source matches the same URL; a local one the same file."""
        if self.source_file is None or str(self.source_file) == str(file_path):
            return True
        if "://" in str(self.source_file) or not os.path.exists(self.source_file):
            return False
        return os.path.realpath(self.source_file) == os.path.realpath(local_path)

    @staticmethod
    def _without_excluded(questions: Iterable[SquadQuestion], excluded: set, skipped: Counter) -> Iterable[SquadQuestion]:
        for question in questions:
            if question.qid in excluded:
                skipped["id listed in exclude_question_ids_from"] += 1
            else:
                yield question

    def set_epoch(self, epoch: int) -> None:
        """The trainer's epoch (counting from 0), which the next read's noise is drawn for."""
        self.epoch = int(epoch)

    def _current_epoch(self) -> int:
        if self.epoch is not None:
            return self.epoch
        if (self.schedule is not None or self.question_noise is not None) and not self._warned_epoch:
            self._warned_epoch = True
            logger.warning(
                "the reader's noise is drawn by read count, not by the trainer's epoch: add the "
                "`reader_epoch` trainer callback so that a resumed run reads what a straight one reads"
            )
        return self._reads

    def _split_articles(self, dataset: dict, excluded: set) -> Tuple[dict, set]:
        """The dataset with only the articles that `articles` asks for, and the held-out keys."""
        if self.articles == "all":
            return dataset, set()
        held_out = held_out_titles(dataset, self.held_out_share, self.held_out_seed, excluded)
        keep = (lambda key: key in held_out) if self.articles == "held_out" else (lambda key: key not in held_out)
        data = [article for index, article in enumerate(dataset["data"]) if keep(article_key(index, article))]
        return dict(dataset, data=data), held_out

    def _scheduled(self, questions: Iterable[SquadQuestion], epoch: int) -> Iterable[SquadQuestion]:
        """The questions of one epoch under the noise schedule: each question is drawn, by
        `(noise_seed, epoch, id)`, for a noisy version with the step's share; the version is a
        noisy copy (chosen by the step's weights), the `question_noise` output, or with neither
        the clean question again. With `keep_clean` the version follows the clean question."""
        step, seed = self.schedule.step(epoch), epoch_seed(self.noise_seed, epoch)
        weights = self.schedule.weights(epoch)
        copies = self.question_noise if self.schedule.copy_names else None
        online = self.question_noise if copies is None else None
        missing = 0
        for batch in chunked(questions, self.noise_batch_size):
            drawn = [question_rng(seed, q.qid, "noise_share").random() < step.share for q in batch]
            texts = {}
            if online is not None:
                chosen = [q for q, d in zip(batch, drawn) if d]
                if chosen:
                    noised = online.noise([q.question for q in chosen], seed=seed, ids=[q.qid for q in chosen])
                    texts = {id(q): text for q, text in zip(chosen, noised)}
            for question, draw in zip(batch, drawn):
                if not draw or self.keep_clean:
                    yield question
                if not draw:
                    continue
                if copies is not None:
                    _, text = copies.pick(question.qid, seed, weights)
                    if text is None:
                        missing += 1
                        text = question.question
                else:
                    text = texts.get(id(question), question.question)
                extra = dict(question.extra)
                extra.setdefault("original_question", question.question)
                yield replace(question, question=text, extra=extra)
        if missing:
            logger.info("epoch %d: %d drawn questions had no text in the drawn copy and were read clean", epoch, missing)

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
