"""Per-question SQuAD v1.1 scores of one study pair, from the predictions it caches
(`pairs/<model>__<set>/predictions.jsonl`, and `seed<i>/predictions.jsonl` under it for a model's
further seeds): the material of the study's intervals, paired tests and error analysis. Questions
are kept in the order of their ids, so that two pairs over the same questions line up."""
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from srcframework.metrics.records import read_records
from srcframework.metrics.squad import exact_match_score, f1_score, metric_max_over_ground_truths
from srcframework.studies.study import StudyError


@dataclass
class PairScores:
    """
    # Parameters

    model : `str`
    set : `str`
    ids : `List[str]`
        The question ids, sorted.
    em : `np.ndarray`
        Exact match of each question (0 or 100), in the order of `ids`.
    f1 : `np.ndarray`
        F1 of each question (0-100).
    records : `Dict[str, dict]`
        The prediction records by id (question, original_question, answers, prediction, groups),
        of the model's first seed.
    em_by_seed : `np.ndarray`, optional
        `seeds x questions` exact match, one row per archive of the model; `em` is their mean.
        Default: `em` as the one row.
    f1_by_seed : `np.ndarray`, optional
    """

    model: str
    set: str
    ids: List[str]
    em: np.ndarray
    f1: np.ndarray
    records: Dict[str, dict]
    em_by_seed: Optional[np.ndarray] = None
    f1_by_seed: Optional[np.ndarray] = None

    def __post_init__(self) -> None:
        if self.em_by_seed is None:
            self.em_by_seed = np.asarray(self.em, dtype=np.float64)[None, :]
        if self.f1_by_seed is None:
            self.f1_by_seed = np.asarray(self.f1, dtype=np.float64)[None, :]

    @property
    def seeds(self) -> int:
        return int(self.f1_by_seed.shape[0])

    def positions(self, ids: Sequence[str]) -> np.ndarray:
        where = {qid: i for i, qid in enumerate(self.ids)}
        return np.fromiter((where[qid] for qid in ids), dtype=np.int64, count=len(ids))


def question_scores(record: dict) -> Tuple[float, float]:
    """`(EM, F1)` of one record on a 0-100 scale; no prediction scores 0."""
    prediction = record["prediction"]
    if prediction is None:
        return 0.0, 0.0
    answers = record["answers"]
    em = metric_max_over_ground_truths(exact_match_score, prediction, answers)
    return 100.0 * float(em), 100.0 * metric_max_over_ground_truths(f1_score, prediction, answers)


def pair_scores(records: List[dict], model: str, test_set: str, data: str) -> PairScores:
    """The scores of a pair's records; a question id that occurs twice is a `StudyError` naming
    the id and `data` (the set's file), since the pair's questions could not be paired by id."""
    by_id: Dict[str, dict] = {}
    for record in records:
        qid = str(record["id"])
        if qid in by_id:
            raise StudyError(
                f"test set {test_set} ({data}): question id {qid!r} occurs more than once; "
                "a study pairs questions by id, so every id must be unique"
            )
        by_id[qid] = record
    ids = sorted(by_id)
    scores = np.array([question_scores(by_id[qid]) for qid in ids], dtype=np.float64).reshape(len(ids), 2)
    return PairScores(model, test_set, ids, scores[:, 0].copy(), scores[:, 1].copy(), by_id)


def load_pair_scores(path: str, model: str, test_set: str, data: str) -> PairScores:
    """`pair_scores` of the predictions a pair cached in `path` (JSON lines)."""
    return pair_scores(read_records(path), model, test_set, data)


def combine_seeds(seeds: List[PairScores], data: str) -> PairScores:
    """One pair's scores from those of each seed of its model (the same questions in each): the
    per-question scores averaged over seeds, and kept by seed. Seeds over other questions are a
    `StudyError` naming the set and `data`."""
    if len(seeds) == 1:
        return seeds[0]
    first = seeds[0]
    for index, other in enumerate(seeds[1:], 1):
        if other.ids != first.ids:
            raise StudyError(
                f"test set {first.set} ({data}): model {first.model}'s seed {index} answered other questions "
                f"than its seed 0 ({len(other.ids)} against {len(first.ids)}); rerun the pair"
            )
    em = np.stack([s.em for s in seeds])
    f1 = np.stack([s.f1 for s in seeds])
    return PairScores(first.model, first.set, first.ids, em.mean(axis=0), f1.mean(axis=0), first.records, em, f1)


def shared_ids(first: PairScores, second: PairScores) -> List[str]:
    """The ids both pairs scored, sorted (the questions a paired comparison covers)."""
    theirs = set(second.ids)
    return [qid for qid in first.ids if qid in theirs]
