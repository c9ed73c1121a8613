"""The per-question prediction record: its fields, its group keys, how a model's output becomes
one, how a `span_qa` predictor line is written and read back (`predict_lines`, the one reader of
`allennlp predict` output, for the records and for scoring), and the question noise of a list of
records.

A record is a dict with `id`, `prediction` (the answer string, or `None` for no answer, which
scores 0), `answers` (the gold strings), `groups` (e.g. `{"speaker": "SPK009", "country": "US",
"gender": "M"}`), `question` (what the model read) and `original_question` (the clean question,
where there is one); a cascade record also has `fid`, the recording's file id.

It lives in `metrics/` (layer 1), not in `reports/`, so that the models (layer 3) can take the
groups of a question from here, and the reports, jobs and studies above build and read records
with the same functions.
"""
import json
from typing import Any, Dict, List, Optional, Sequence, Tuple

from srcframework.common.errors import json_error_text
from srcframework.data.errors import DatasetError
from srcframework.metrics.text_noise import question_noise_statistics

GROUP_KEYS = ("country", "gender", "speaker")
RECORD_KEYS = ("id", "prediction", "answers", "groups", "question", "original_question")
# what every `allennlp predict` line holds, and what scoring reads from it
PREDICT_KEYS = ("id", "best_span_str")
# what a model's output must hold to become a record
OUTPUT_KEYS = ("id", "best_span_str", "answers")
# one line of `allennlp predict --predictor span_qa`
PREDICTION_LINE_KEYS = ("id", "best_span_str", "best_span", "answers", "groups", "question", "original_question")


def question_groups(meta: Dict[str, Any]) -> Dict[str, str]:
    """The speaker/country/gender of a question, from its metadata or the metadata's `extra`
    (fields a SQuAD file carries beside the question); only the keys that are present."""
    extra = meta.get("extra") or {}
    groups = {}
    for key in GROUP_KEYS:
        value = meta.get(key, extra.get(key))
        if value is not None:
            groups[key] = str(value)
    return groups


def prediction_record(
    qid,
    prediction: Optional[str],
    answers: Sequence[str],
    groups: Optional[Dict[str, str]] = None,
    question=None,
    original_question=None,
    fid: Optional[str] = None,
) -> dict:
    """A record (see the module docstring); `fid` only where it is given."""
    record = {"id": qid} if fid is None else {"id": qid, "fid": fid}
    record.update(
        prediction=prediction,
        answers=list(answers or []),
        groups=dict(groups or {}),
        question=question,
        original_question=original_question,
    )
    return record


def missing_output_keys(output: dict) -> List[str]:
    return [key for key in OUTPUT_KEYS if key not in output]


def _plain(value):
    return value.tolist() if hasattr(value, "tolist") else value


def record_from_output(output: dict) -> dict:
    """The record of one output of `Model.forward_on_instances` (which must hold `OUTPUT_KEYS`)."""
    return prediction_record(
        _plain(output["id"]),
        _plain(output["best_span_str"]),
        _plain(output["answers"]),
        output.get("groups"),
        _plain(output.get("question")),
        _plain(output.get("original_question")),
    )


def prediction_line(outputs: Dict[str, Any]) -> Dict[str, Any]:
    """The fields of a `span_qa` predictor line, in order, from the predictor's outputs."""
    return {key: outputs.get(key) for key in PREDICTION_LINE_KEYS}


def _optional_text(value) -> Optional[str]:
    """A question text, or None. AllenNLP's `sanitize` writes a missing value as the string "None"."""
    return value if isinstance(value, str) and value != "None" else None


def read_predictions_text(path) -> str:
    """The text of a predictions file; a `DatasetError` naming it when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as err:
        raise DatasetError(path, f"cannot read predictions: {err}") from None


def predict_lines(path, keys: Sequence[str], expected: str, text: Optional[str] = None) -> List[Tuple[int, dict]]:
    """
    `(line number, object)` of each non-blank line of JSON-lines predictions (`allennlp predict`
    output). A line that is not a JSON object, or lacks one of `keys`, is a `DatasetError` naming
    the file and line; so is a file without a line, and a file that is one JSON list of rows (the
    error says which shape was expected).

    # Parameters

    path : `str`
    keys : `Sequence[str]`
        The keys every line must hold.
    expected : `str`
        What the file should be, for the errors (e.g. "`span_qa` predict output").
    text : `str`, optional
        The file's text, where the caller has read it already.
    """
    text = read_predictions_text(path) if text is None else text
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None  # JSON lines (or no JSON): read line by line below
    if isinstance(whole, list):
        kinds = sorted({type(item).__name__ for item in whole})
        raise DatasetError(
            path,
            f"the file is one JSON list (of {len(whole)} {'/'.join(kinds) or 'no'} items), not JSON lines; expected "
            f"{expected}: one JSON object a line, as `allennlp predict` writes (`jq -c '.[]' FILE` converts a list)",
        )
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            why = json_error_text(err, with_line=False)
            raise DatasetError(path, f"line {number}: not JSON ({why}); expected {expected}") from None
        if not isinstance(row, dict):
            raise DatasetError(path, f"line {number}: expected a JSON object ({expected}), got {type(row).__name__}")
        missing = [key for key in keys if key not in row]
        if missing:
            raise DatasetError(path, f"line {number}: missing key(s) {missing}; is this {expected}?")
        rows.append((number, row))
    if not rows:
        raise DatasetError(path, "no predictions in the file")
    return rows


def records_from_predictions(path) -> List[dict]:
    """Records from the JSON lines `allennlp predict --predictor span_qa` writes (`id`,
    `best_span_str`, `answers`, `groups`, `question`, `original_question`), read by
    `predict_lines`: a malformed line, or one without `id`, `best_span_str` or `answers`, is a
    `DatasetError` naming the file and line. A `best_span_str` of null is no answer; a `question`
    or `original_question` of null or "None" counts as absent. An id may occur on several lines
    (one question read by several speakers)."""
    records = []
    for number, row in predict_lines(path, OUTPUT_KEYS, "`span_qa` predict output"):
        answers, groups = row["answers"], row.get("groups") or {}
        if not isinstance(answers, list) or not answers or not all(isinstance(a, str) for a in answers):
            raise DatasetError(path, f"line {number}: answers must be a non-empty list of strings", row["id"])
        if row["best_span_str"] is not None and not isinstance(row["best_span_str"], str):
            raise DatasetError(path, f"line {number}: best_span_str is not a string", row["id"])
        if not isinstance(groups, dict):
            raise DatasetError(path, f"line {number}: groups must be an object", row["id"])
        records.append(
            prediction_record(
                row["id"],
                row["best_span_str"],
                answers,
                groups,
                _optional_text(row.get("question")),
                _optional_text(row.get("original_question")),
            )
        )
    return records


def _is_predict_line(value) -> bool:
    return isinstance(value, dict) and all(key in value for key in PREDICT_KEYS)


def load_predictions(path) -> Dict[str, str]:
    """
    `{qid: answer}` for scoring, from an official predictions file (one JSON object `{qid: answer}`)
    or from `allennlp predict` JSON lines holding `id` and `best_span_str` (read by
    `predict_lines`). The two are told apart by content, so a one-line `predict` output is read as
    such. Strict: an empty file, `{}`, an answer that is not a string, and a second prediction for
    an id are `DatasetError`s naming the file (and line, and id).
    """
    text = read_predictions_text(path)
    if not text.strip():
        raise DatasetError(path, "the predictions file is empty")
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict) and not _is_predict_line(whole):
        if not whole:
            raise DatasetError(path, "the predictions file holds no predictions ({})")
        for qid, answer in whole.items():
            if not isinstance(answer, str):
                raise DatasetError(path, f"the prediction is {type(answer).__name__} {answer!r}, not a string", qid)
        return whole
    expected = "an official {qid: answer} file or `allennlp predict` output"
    predictions: Dict[str, str] = {}
    lines: Dict[str, int] = {}
    for number, row in predict_lines(path, PREDICT_KEYS, expected, text):
        qid, answer = str(row["id"]), row["best_span_str"]
        if not isinstance(answer, str):
            raise DatasetError(
                path, f"line {number}: best_span_str is {type(answer).__name__} {answer!r}, not a string", qid
            )
        if qid in lines:
            raise DatasetError(path, f"line {number}: a second prediction (the first is on line {lines[qid]})", qid)
        lines[qid] = number
        predictions[qid] = answer
    return predictions


def read_records(path: str) -> List[dict]:
    """The records of a `predictions.jsonl` file written from records (one JSON object a line)."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def question_pairs(records: Sequence[dict]) -> Tuple[List[str], List[str]]:
    """`(originals, questions)` of the records whose question and original are both text."""
    refs, hyps = [], []
    for record in records:
        question, original = record.get("question"), record.get("original_question")
        if isinstance(question, str) and isinstance(original, str):
            refs.append(original)
            hyps.append(question)
    return refs, hyps


def question_noise(records: Sequence[dict]) -> Optional[dict]:
    """CER, WER, BLEU (%) of the records' questions against their originals, where both are text;
    None where no record has both, or every original is empty after normalisation."""
    refs, hyps = question_pairs(records)
    if not refs:
        return None
    try:
        return question_noise_statistics(refs, hyps)
    except ValueError:
        return None
