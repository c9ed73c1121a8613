"""Held-out articles: a validation split made of whole articles of the training source.

Questions of one article share its topic and often its answers, so a validation split that takes
single questions or paragraphs of an article the model trains on is optimistic. `held_out_titles`
picks whole articles instead, deterministically from the file, the questions left out before and
a seed: the training reader (`articles: "train"`) and the validation reader (`articles:
"held_out"`) of one config pick the same articles, and so does `scripts/make_training_split.py`.
"""
import random
from typing import Iterable, Set

from allennlp.common.checks import ConfigurationError

ARTICLE_CHOICES = ("all", "train", "held_out")


def article_key(index: int, article: dict) -> str:
    """An article's title, or its position where it has none."""
    title = article.get("title") if isinstance(article, dict) else None
    return title if isinstance(title, str) and title else f"#{index}"


def check_split_options(articles: str, share: float) -> None:
    if articles not in ARTICLE_CHOICES:
        raise ConfigurationError(f"articles must be one of {', '.join(ARTICLE_CHOICES)}, not {articles!r}")
    if not 0.0 < share < 1.0:
        raise ConfigurationError(f"held_out_share must be between 0 and 1 (a share of the questions), not {share}")


def held_out_titles(dataset: dict, share: float = 0.1, seed: int = 0, excluded_ids: Iterable[str] = ()) -> Set[str]:
    """
    The keys (`article_key`) of the articles held out for validation: articles in a seeded random
    order, taken until they hold at least `share` of the questions (those in `excluded_ids` not
    counted). Every article that has questions left is a candidate; at least one article stays
    for training.
    """
    check_split_options("held_out", share)
    excluded = set(excluded_ids)
    counts = {}
    for index, article in enumerate(dataset.get("data", [])):
        paragraphs = article.get("paragraphs", []) if isinstance(article, dict) else []
        n = sum(1 for p in paragraphs if isinstance(p, dict) for qa in p.get("qas", []) if qa.get("id") not in excluded)
        if n:
            counts[article_key(index, article)] = n
    if len(counts) < 2:
        raise ConfigurationError("a held-out split needs at least two articles with questions")
    order = sorted(counts)
    random.Random(seed).shuffle(order)
    total, chosen, taken = sum(counts.values()), set(), 0
    for key in order[:-1]:
        if taken >= share * total:
            break
        chosen.add(key)
        taken += counts[key]
    return chosen
