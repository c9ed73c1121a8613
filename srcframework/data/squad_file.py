"""Reading and validating SQuAD v1.1-format JSON (SQuAD, XQuAD, NoiseQA challenge sets).

`iter_questions` yields one validated `SquadQuestion` per question. Every problem is a
`DatasetError` naming the file and question id (or the article and paragraph); with
`skip_invalid=True` a problem question is counted in `skipped` (reason -> count) instead. A question
id that appears twice is always an error, since the id is what predictions and scores are keyed
by: every reader, `squad-eval`, `synthesize-speech` and `transcribe` read questions through here.
"""
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional

from srcframework.common.errors import json_error_text
from srcframework.data.errors import DatasetError

QA_KEYS = {"id", "question", "answers"}


@dataclass
class SquadQuestion:
    qid: str
    question: str
    context: str
    answers: List[str]
    answer_starts: List[int]
    title: str = ""
    extra: Dict[str, Any] = field(default_factory=dict)


def load_squad_json(file_path) -> dict:
    """Load a SQuAD-format file; a clear `DatasetError` for non-UTF-8 text or malformed JSON."""
    try:
        with open(file_path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        raise DatasetError(file_path, "file not found") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise DatasetError(file_path, f"not valid UTF-8 (byte {err.start}: {raw[err.start:err.start + 1]!r})") from None
    try:
        dataset = json.loads(text)
    except json.JSONDecodeError as err:
        raise DatasetError(file_path, f"malformed JSON: {json_error_text(err)}") from None
    if not isinstance(dataset, dict) or not isinstance(dataset.get("data"), list):
        raise DatasetError(file_path, 'expected a JSON object with a "data" list (SQuAD v1.1 format)')
    return dataset


def _check_answers(file_path, qid: str, context: str, answers: Any) -> tuple:
    if not isinstance(answers, list):
        raise DatasetError(file_path, '"answers" must be a list', qid)
    texts, starts = [], []
    for answer in answers:
        if not isinstance(answer, dict) or "text" not in answer or "answer_start" not in answer:
            raise DatasetError(file_path, 'each answer needs "text" and "answer_start"', qid)
        text, start = answer["text"], answer["answer_start"]
        if not isinstance(start, int) or isinstance(start, bool):
            raise DatasetError(file_path, f"answer_start {start!r} is not an integer", qid)
        if not isinstance(text, str) or not text.strip():
            raise DatasetError(file_path, "empty answer text", qid)
        found = context[start : start + len(text)]
        if start < 0 or found != text:
            raise DatasetError(
                file_path, f"answer_start {start} points at {found!r}, not at the answer {text!r}",
                qid,
                reason="answer_start does not match the answer text",
            )
        texts.append(text)
        starts.append(start)
    return texts, starts


def iter_questions(
    file_path,
    dataset: Optional[dict] = None,
    skip_invalid: bool = False,
    skipped: Optional[Counter] = None,
    require_answers: bool = True,
) -> Iterator[SquadQuestion]:
    """Yield every question of a SQuAD-format file, validated."""
    dataset = load_squad_json(file_path) if dataset is None else dataset
    skipped = Counter() if skipped is None else skipped
    seen: Dict[str, str] = {}  # question id -> where it first appeared
    for a_index, article in enumerate(dataset["data"]):
        if not isinstance(article, dict) or not isinstance(article.get("paragraphs"), list):
            raise DatasetError(file_path, f'article {a_index} has no "paragraphs" list')
        title = article.get("title", "")
        for p_index, paragraph in enumerate(article["paragraphs"]):
            where = f"article {a_index}" + (f" ({title!r})" if title else "") + f", paragraph {p_index}"
            if not isinstance(paragraph, dict):
                raise DatasetError(file_path, f"{where} is not a JSON object")
            missing_keys = [key for key in ("context", "qas") if key not in paragraph]
            if missing_keys:
                raise DatasetError(file_path, f"{where} has no {' or '.join(map(repr, missing_keys))} key")
            if not isinstance(paragraph["qas"], list):
                raise DatasetError(file_path, f'{where}: "qas" must be a list')
            context = paragraph["context"]
            for qa in paragraph["qas"]:
                qid = qa.get("id") if isinstance(qa, dict) else None
                if isinstance(qid, (str, int)) and not isinstance(qid, bool):
                    if str(qid) in seen:
                        raise DatasetError(
                            file_path, f"duplicate question id: in {seen[str(qid)]} and again in {where}", str(qid)
                        )
                    seen[str(qid)] = where
                try:
                    missing = QA_KEYS - set(qa) if isinstance(qa, dict) else QA_KEYS
                    if missing:
                        raise DatasetError(file_path, f"missing key(s) {sorted(missing)}", qid)
                    if not isinstance(context, str) or not context.strip():
                        raise DatasetError(file_path, "empty context", qid)
                    question = qa["question"]
                    if not isinstance(question, str) or not question.strip():
                        raise DatasetError(file_path, "empty question", qid)
                    texts, starts = _check_answers(file_path, qid, context, qa["answers"])
                    if require_answers and not texts:
                        raise DatasetError(file_path, "no answers", qid)
                except DatasetError as err:
                    if not skip_invalid:
                        raise
                    skipped[err.reason] += 1
                    continue
                extra = {k: v for k, v in qa.items() if k not in QA_KEYS}
                yield SquadQuestion(str(qid), question, context, texts, starts, title, extra)
