"""The context (SQuAD paragraph) of each question of a study, the cluster that the cluster
bootstrap resamples: a question's context id is the first 16 hex digits of the sha256 of its
paragraph's text, so that a noisy copy of a set (same paragraphs, other questions) gives its
questions the same ids as the clean set."""
import hashlib
import os
from typing import Dict, Iterable

from srcframework.data.errors import DatasetError
from srcframework.data.squad_file import load_squad_json


def context_id(context: str) -> str:
    return hashlib.sha256(context.encode("utf-8")).hexdigest()[:16]


def squad_contexts(path: str) -> Dict[str, str]:
    """`{question id: context id}` of a SQuAD-format file; entries without a context or an id
    are left out."""
    found: Dict[str, str] = {}
    for article in load_squad_json(path)["data"]:
        paragraphs = article.get("paragraphs") if isinstance(article, dict) else None
        for paragraph in paragraphs if isinstance(paragraphs, list) else []:
            if not isinstance(paragraph, dict) or not isinstance(paragraph.get("context"), str):
                continue
            key = context_id(paragraph["context"])
            for qa in paragraph.get("qas") or []:
                if isinstance(qa, dict) and qa.get("id") is not None:
                    found.setdefault(str(qa["id"]), key)
    return found


def question_contexts(paths: Iterable[str]) -> Dict[str, str]:
    """`{question id: context id}` over the SQuAD files among `paths` (the first file that holds
    an id names its context); a path that is not a SQuAD JSON file (an audio set's csv or folder) gives none."""
    found: Dict[str, str] = {}
    for path in dict.fromkeys(paths):
        if not os.path.isfile(path):
            continue
        try:
            contexts = squad_contexts(path)
        except DatasetError:
            continue
        for qid, key in contexts.items():
            found.setdefault(qid, key)
    return found
