import json
import os
from typing import List, Optional

from allennlp.common.util import JsonDict, sanitize
from allennlp.data import DatasetReader, Instance
from allennlp.models import Model
from allennlp.predictors import Predictor


@Predictor.register("span_qa")
class SpanQAPredictor(Predictor):
    """
    Answers `{"context": ..., "question": ..., "id": ...}` JSON lines (or, with
    `--use-dataset-reader`, the instances of a SQuAD file). Each output line holds `id`,
    `best_span_str`, `best_span`, the gold `answers` and the question's `groups` (speaker, country,
    gender where the data has them); `allennlp accent-report` reads these lines.

    # Parameters

    model : `Model`
    dataset_reader : `DatasetReader`
        Must offer `text_to_instance(question, context, question_id=...)`, as `squad_v1` does.
    official_predictions_file : `str`, optional
        Also write the official SQuAD predictions format `{qid: answer}` to this file. The file is
        valid JSON after every prediction (each new entry is written before the closing brace).
    frozen : `bool`, optional (default = `True`)
    """

    def __init__(
        self,
        model: Model,
        dataset_reader: DatasetReader,
        official_predictions_file: Optional[str] = None,
        frozen: bool = True,
    ) -> None:
        super().__init__(model, dataset_reader, frozen)
        self._official = None
        if official_predictions_file:
            self._official = open(official_predictions_file, "w+b")
            self._official.write(b"{}")
            self._official.flush()
            self._official_count = 0

    def _json_to_instance(self, json_dict: JsonDict) -> Instance:
        for key in ("context", "question"):
            if not isinstance(json_dict.get(key), str) or not json_dict[key].strip():
                raise ValueError(f"each input line needs a non-empty string {key!r}; got keys {sorted(json_dict)}")
        return self._dataset_reader.text_to_instance(
            json_dict["question"], json_dict["context"], question_id=json_dict.get("id")
        )

    def predict_instance(self, instance: Instance) -> JsonDict:
        return self.predict_batch_instance([instance])[0]

    def predict_batch_instance(self, instances: List[Instance]) -> List[JsonDict]:
        # sanitize() would write None as the string "None": absent values are left out instead
        outputs = self._model.forward_on_instances(instances)
        return [sanitize({key: value for key, value in output.items() if value is not None}) for output in outputs]

    def _write_official(self, qid: str, answer: str) -> None:
        handle = self._official
        handle.seek(-1, os.SEEK_END)
        separator = ", " if self._official_count else ""
        entry = f"{separator}{json.dumps(qid)}: {json.dumps(answer, ensure_ascii=False)}}}"
        handle.write(entry.encode("utf-8"))
        handle.truncate()
        handle.flush()
        self._official_count += 1

    def dump_line(self, outputs: JsonDict) -> str:
        line = {
            "id": outputs.get("id"),
            "best_span_str": outputs.get("best_span_str"),
            "best_span": outputs.get("best_span"),
            "answers": outputs.get("answers"),
            "groups": outputs.get("groups"),
            "question": outputs.get("question"),
            "original_question": outputs.get("original_question"),
        }
        if self._official is not None and line["id"] is not None:
            self._write_official(line["id"], line["best_span_str"])
        line = {key: sanitize(value) for key, value in line.items() if value is not None}
        return json.dumps(line, ensure_ascii=False) + "\n"
