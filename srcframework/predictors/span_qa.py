import atexit
import json
import logging
import os
from typing import Dict, List, Optional

from allennlp.common.util import JsonDict, sanitize
from allennlp.data import DatasetReader, Instance
from allennlp.models import Model
from allennlp.predictors import Predictor

from srcframework.common.errors import InputError, InputFileNotFound, json_error_text
from srcframework.common.files import write_json_atomic
from srcframework.common.paths import check_output_path
from srcframework.metrics.records import prediction_line

logger = logging.getLogger(__name__)

# allennlp-models' name for the context (its `reading_comprehension` predictors read `passage`)
CONTEXT_ALIAS = "passage"


@Predictor.register("span_qa")
class SpanQAPredictor(Predictor):
    """
    Answers `{"context": ..., "question": ..., "id": ...}` JSON lines (`passage`, allennlp-models'
    name, is taken for `context`), or for a model that hears
    its questions (its reader is `squad_src`) `{"context": ..., "audio": "q.wav", "id": ...}` (an
    audio file; `question`, the words said, is optional there and only recorded), or, with
    `--use-dataset-reader`, the instances of a SQuAD file (or of a spoken folder's fid2qid file: a
    `squad_src` reader then reads the folder's own SQuAD file, `folder_squad_file_first`, not the
    training file its archive names). Each output line holds `id`,
    `best_span_str`, `best_span`, the gold `answers` and the question's `groups` (speaker, country,
    gender where the data has them); `allennlp accent-report` reads these lines.

    A bad input (a line that is not a JSON object, a missing or empty key, an audio file that is
    not there, a question id answered twice) is an `InputError`: one line from `allennlp predict`
    (`commands.cli_errors`), naming the input line (counted without blank lines, which `allennlp
    predict` skips).

    # Parameters

    model : `Model`
    dataset_reader : `DatasetReader`
        Must offer `text_to_instance(question, context, question_id=...)`, as `squad_v1` does, or
        `text_to_instance(audio, context, question_id=..., question=...)`, as `squad_src` does.
    official_predictions_file : `str`, optional
        Also write the official SQuAD predictions format `{qid: answer}` to this file, once every
        question is answered: atomically (a temporary file in the same folder, then `os.replace`),
        by `write_official_predictions()`, which `allennlp predict` calls when its run returns
        (`srcframework.commands.allennlp_outputs`). A run that raises calls
        `discard_official_predictions()` instead and writes no file, whether the error ends the
        process or a library caller catches it; an earlier file at that path is removed when the
        predictor is made, so an official file is never a partial or stale one. Answers that were
        never written are named in a warning when the process ends. Its folder is checked when
        the predictor is made, before any prediction; a question id answered twice is an error
        naming the id.
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
        if hasattr(dataset_reader, "folder_squad_file_first"):  # squad_src: read the folder given, not the training file
            dataset_reader.folder_squad_file_first = True
        self._official_path = official_predictions_file or None
        self._official: Optional[Dict[str, str]] = None
        if self._official_path is not None:
            check_output_path(self._official_path, "official predictions file")
            if os.path.exists(self._official_path):  # an earlier run's file must not pass for this run's
                logger.info("removing the earlier official predictions file %s", self._official_path)
                os.remove(self._official_path)
            self._official = {}
            atexit.register(self._warn_unwritten)

    def load_line(self, line: str) -> JsonDict:
        """One input line of `allennlp predict`, parsed and checked (`checked_input`): a bad line is
        an `InputError` naming its number."""
        self._lines_read = getattr(self, "_lines_read", 0) + 1
        where = f"input line {self._lines_read}"
        try:
            json_dict = json.loads(line.strip())
        except json.JSONDecodeError as err:
            raise InputError(f"{where} is not JSON: {json_error_text(err, with_line=False)}") from None
        return self.checked_input(json_dict, where)

    def spoken(self) -> bool:
        """True for a model that hears its questions (its reader is `squad_src`)."""
        from srcframework.data.dataset_readers.squad_src import SquadSrcReader

        return isinstance(self._dataset_reader, SquadSrcReader)

    def checked_input(self, json_dict: JsonDict, where: str = "the input") -> JsonDict:
        """`json_dict` with `passage` renamed `context`, once it holds what this model needs; else
        an `InputError` saying what is wrong in `where`."""
        if not isinstance(json_dict, dict):
            raise InputError(f"{where} is a JSON {type(json_dict).__name__}, not an object with 'context' and "
                             f"'{'audio' if self.spoken() else 'question'}'")
        if CONTEXT_ALIAS in json_dict:
            if "context" in json_dict:
                raise InputError(f"{where} gives both 'context' and {CONTEXT_ALIAS!r} (the same thing): give one")
            json_dict = {("context" if key == CONTEXT_ALIAS else key): value for key, value in json_dict.items()}
        spoken = self.spoken()
        if "audio" in json_dict and not spoken:
            raise InputError(f"{where}: this model reads typed questions: give the question as 'question', not 'audio'")
        for key in ("context", "audio") if spoken else ("context", "question"):
            if not isinstance(json_dict.get(key), str) or not json_dict[key].strip():
                what = "this model hears its questions: give an audio file as" if key == "audio" else "needs"
                also = f" (or {CONTEXT_ALIAS!r})" if key == "context" else ""
                raise InputError(f"{where}: {what} a non-empty string {key!r}{also}; got keys {sorted(json_dict)}")
        if spoken and not os.path.isfile(json_dict["audio"]):
            raise InputFileNotFound(f"{where}: audio file {json_dict['audio']!r} not found")
        return json_dict

    def _json_to_instance(self, json_dict: JsonDict) -> Instance:
        json_dict = self.checked_input(json_dict)
        if self.spoken():
            instance = self._dataset_reader.text_to_instance(
                json_dict["audio"], json_dict["context"], question_id=json_dict.get("id"), question=json_dict.get("question")
            )
            if instance is None:
                raise InputError(f"the reader skips {json_dict['audio']!r}: longer than its audio indexer takes, with "
                                 "overflow 'skip'")
            return instance
        return self._dataset_reader.text_to_instance(
            json_dict["question"], json_dict["context"], question_id=json_dict.get("id")
        )

    def predict_instance(self, instance: Instance) -> JsonDict:
        return self.predict_batch_instance([instance])[0]

    def predict_batch_instance(self, instances: List[Instance]) -> List[JsonDict]:
        # sanitize() would write None as the string "None": absent values are left out instead
        outputs = self._model.forward_on_instances(instances)
        return [sanitize({key: value for key, value in output.items() if value is not None}) for output in outputs]

    def write_official_predictions(self) -> Optional[str]:
        """Writes the official predictions file of every question answered so far (atomically)
        and returns its path; None without `official_predictions_file`, or after
        `discard_official_predictions()`. Call it once all questions are answered; `allennlp
        predict` does so when its run returns."""
        if self._official is None:
            return None
        atexit.unregister(self._warn_unwritten)
        write_json_atomic(self._official_path, self._official)
        return self._official_path

    def discard_official_predictions(self) -> None:
        """Forgets the answers collected for the official predictions file, which is then never
        written: what `allennlp predict` calls when its run raises."""
        if self._official is None:
            return
        atexit.unregister(self._warn_unwritten)
        logger.warning("the run failed: no official predictions file written to %s", self._official_path)
        self._official = None

    def _warn_unwritten(self) -> None:
        if self._official:
            logger.warning(
                "%d answers for the official predictions file %s were never written: "
                "call write_official_predictions() once every question is answered",
                len(self._official), self._official_path,
            )

    def _add_official(self, qid: str, answer: str) -> None:
        if qid in self._official:
            raise InputError(
                f"question id {qid!r} is answered twice; the official predictions file "
                f"{self._official_path} holds one answer per id"
            )
        self._official[qid] = answer

    def dump_line(self, outputs: JsonDict) -> str:
        line = prediction_line(outputs)
        if self._official is not None and line["id"] is not None:
            self._add_official(str(line["id"]), line["best_span_str"])
        line = {key: sanitize(value) for key, value in line.items() if value is not None}
        return json.dumps(line, ensure_ascii=False) + "\n"
