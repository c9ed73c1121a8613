"""SQuAD v1.1 exact match and F1, as the official evaluate-v1.1 script defines them.

Normalisation: lowercase, remove punctuation (`string.punctuation`), remove the articles
a/an/the as whole words, collapse whitespace. F1 is over the bag of normalised tokens; a
prediction scores the maximum over the gold answers; totals are on a 0-100 scale, and a question
with no prediction scores 0.
"""
import re
import string
import sys
from collections import Counter
from typing import Callable, Dict, Iterable, List

_PUNCT = set(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def exact_match_score(prediction: str, ground_truth: str) -> bool:
    return normalize_answer(prediction) == normalize_answer(ground_truth)


def f1_score(prediction: str, ground_truth: str) -> float:
    pred_tokens = normalize_answer(prediction).split()
    gold_tokens = normalize_answer(ground_truth).split()
    common = Counter(pred_tokens) & Counter(gold_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0.0
    precision = num_same / len(pred_tokens)
    recall = num_same / len(gold_tokens)
    return (2 * precision * recall) / (precision + recall)


def metric_max_over_ground_truths(metric: Callable, prediction: str, ground_truths: Iterable[str]) -> float:
    return max(metric(prediction, gt) for gt in ground_truths)


def score_answers(golds: Dict[str, List[str]], predictions: Dict[str, str]) -> Dict[str, float]:
    """
    Official EM and F1 (0-100) of `predictions` over every question of `golds`; a question with no
    prediction scores 0, a prediction for a question not in `golds` is ignored.

    # Parameters

    golds : `Dict[str, List[str]]`
        Question id -> its gold answers (at least one each).
    predictions : `Dict[str, str]`
        Question id -> predicted answer.
    """
    if not golds:
        raise ValueError("the dataset holds no questions")
    exact_match = f1 = 0.0
    for qid, answers in golds.items():
        if qid in predictions:
            exact_match += metric_max_over_ground_truths(exact_match_score, predictions[qid], answers)
            f1 += metric_max_over_ground_truths(f1_score, predictions[qid], answers)
    return {"exact_match": 100.0 * exact_match / len(golds), "f1": 100.0 * f1 / len(golds)}


def evaluate(dataset: List[dict], predictions: Dict[str, str], warn: bool = True) -> Dict[str, float]:
    """Score `{qid: answer}` against the `data` list of a SQuAD v1.1 file (official semantics),
    warning on stderr of each unanswered question. The file is not validated: `squad-eval` reads
    it with `srcframework.data.squad_file.iter_questions` first."""
    golds: Dict[str, List[str]] = {}
    for article in dataset:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                golds[qa["id"]] = [answer["text"] for answer in qa["answers"]]
                if warn and qa["id"] not in predictions:
                    print(f"Unanswered question {qa['id']} will receive score 0.", file=sys.stderr)
    return score_answers(golds, predictions)
