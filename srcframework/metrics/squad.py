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


def evaluate(dataset: List[dict], predictions: Dict[str, str], warn: bool = True) -> Dict[str, float]:
    """Score `{qid: answer}` against the `data` list of a SQuAD v1.1 file (official semantics)."""
    exact_match = f1 = 0.0
    total = 0
    for article in dataset:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                total += 1
                if qa["id"] not in predictions:
                    if warn:
                        print(f"Unanswered question {qa['id']} will receive score 0.", file=sys.stderr)
                    continue
                golds = [answer["text"] for answer in qa["answers"]]
                prediction = predictions[qa["id"]]
                exact_match += metric_max_over_ground_truths(exact_match_score, prediction, golds)
                f1 += metric_max_over_ground_truths(f1_score, prediction, golds)
    if total == 0:
        raise ValueError("the dataset holds no questions")
    return {"exact_match": 100.0 * exact_match / total, "f1": 100.0 * f1 / total}
