from typing import Dict, List

from allennlp.common.file_utils import cached_path

from srcframework.common.errors import InputError
from srcframework.data.errors import DatasetError
from srcframework.data.squad_file import load_squad_json
from srcframework.noise.noise_source import NoiseSource, absolute_path

MISSING_CHOICES = ("error", "keep")


def read_questions_by_id(path: str, skip_empty: bool = False) -> Dict[str, str]:
    """Question id -> question text of a SQuAD-format file (path or URL); a `DatasetError` for a
    missing file or a bad entry. With `skip_empty`, an empty question (e.g. an ASR that heard
    nothing) is left out instead of being an error."""
    dataset = load_squad_json(cached_path(path) if "://" in str(path) else path)
    questions: Dict[str, str] = {}
    for article in dataset["data"]:
        paragraphs = article.get("paragraphs") if isinstance(article, dict) else None
        if not isinstance(paragraphs, list):
            raise DatasetError(path, 'every article needs a "paragraphs" list')
        for paragraph in paragraphs:
            qas = paragraph.get("qas") if isinstance(paragraph, dict) else None
            if not isinstance(qas, list):
                raise DatasetError(path, 'every paragraph needs a "qas" list')
            for qa in qas:
                if not isinstance(qa, dict) or "id" not in qa:
                    raise DatasetError(path, 'a question has no "id"')
                qid, question = str(qa["id"]), qa.get("question")
                if skip_empty and isinstance(question, str) and not question.strip():
                    continue
                if not isinstance(question, str) or not question.strip():
                    raise DatasetError(path, "missing or empty question", qid)
                if questions.setdefault(qid, question) != question:
                    raise DatasetError(path, "the id appears twice with different questions", qid)
    return questions


@NoiseSource.register("natural")
class NaturalNoise(NoiseSource):
    """
    Noise that was recorded rather than simulated: each question is replaced by the question with
    the same id in a SQuAD-format challenge set (e.g. NoiseQA's natural sets, where people typed or
    spoke the questions). `noise` needs the question ids; the seed is not used.

    # Parameters

    path : `str`
        The challenge set, a SQuAD-format JSON file (a path, or a URL via `cached_path`).
    missing : `str`, optional (default = `"error"`)
        What to do with an id the file lacks: `"error"` raises a `DatasetError` naming the id and
        the file; `"keep"` leaves the clean question.
    """

    def __init__(self, path: str, missing: str = "error") -> None:
        if missing not in MISSING_CHOICES:
            raise InputError(f"natural noise: missing must be one of {MISSING_CHOICES}, got {missing!r}")
        self.path = str(path)
        self.missing = missing
        self.questions = read_questions_by_id(self.path)

    def noise(self, questions: List[str], seed: int = 0, ids: List[str] = None) -> List[str]:
        if isinstance(questions, str):
            raise TypeError("natural noise: expected a list of questions, got a single string")
        if ids is None:
            raise ValueError(f"natural noise ({self.path}) looks questions up by id: pass ids=[...]")
        if len(ids) != len(questions):
            raise ValueError(f"natural noise: {len(questions)} questions but {len(ids)} ids")
        noised = []
        for qid, question in zip(ids, questions):
            found = self.questions.get(str(qid))
            if found is None:
                if self.missing == "error":
                    raise DatasetError(
                        self.path, f"no noised question with this id (the file has {len(self.questions)});"
                        " use missing='keep' to leave such questions clean", str(qid),
                    )
                found = question
            noised.append(found)
        return noised

    def describe(self) -> dict:
        return {"type": "natural", "path": absolute_path(self.path), "missing": self.missing}
