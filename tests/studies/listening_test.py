"""The listening controls in a study: a model that ignores the question has a listening gap of
exactly 0 (matched against swapped, and against silent); a model that reads the question does not."""
import json
from pathlib import Path
from typing import Any, Dict, List

import pytest
import torch
from allennlp.data import Vocabulary
from allennlp.models import Model
from allennlp.models.archival import archive_model

from srcframework.studies.runner import run_study
from srcframework.studies.study import StudyError, study_from_dict
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "squad_tiny.json")


@Model.register("listening_test_answerer")
class ListeningTestAnswerer(Model):
    """Answers with context words only: with `use_question` false, the whole context (whatever was
    asked); with it true, the context words that the question does not hold (so the answer changes
    with the question)."""

    def __init__(self, vocab: Vocabulary, use_question: bool = False) -> None:
        super().__init__(vocab)
        self.use_question = use_question
        self.weight = torch.nn.Parameter(torch.zeros(1))

    def forward(self, context: Dict[str, Any], question: Dict[str, Any], metadata: List[dict], **ignored) -> Dict[str, Any]:
        answers = []
        for meta in metadata:
            words = meta["context"].split()
            if self.use_question:
                asked = {w.strip("?,.").lower() for w in str(meta["question"]).split()}
                words = [w for w in words if w.strip("?,.").lower() not in asked][:6]
            answers.append(" ".join(words))
        return {
            "loss": self.weight.sum(),
            "id": [m["id"] for m in metadata],
            "best_span_str": answers,
            "answers": [m["answers"] for m in metadata],
            "question": [m.get("question") for m in metadata],
            "original_question": [m.get("original_question") for m in metadata],
        }


def answerer_archive(folder: Path, use_question: bool) -> str:
    folder.mkdir(parents=True)
    reader = {"type": "squad_v1", "token_indexers": {"tokens": {"type": "single_id"}}}
    config = {"dataset_reader": reader, "train_data_path": TINY,
              "model": {"type": "listening_test_answerer", "use_question": use_question},
              "data_loader": {"batch_size": 2}, "trainer": {"num_epochs": 1, "optimizer": "adam"}}
    (folder / "config.json").write_text(json.dumps(config))
    Vocabulary().save_to_files(str(folder / "vocabulary"))
    torch.save(ListeningTestAnswerer(Vocabulary(), use_question).state_dict(), folder / "best.th")
    archive_model(str(folder), weights="best.th")
    return str(folder / "model.tar.gz")


def listening_study(blind: str, reading: str) -> dict:
    clean = {"data": TINY, "interface": "clean", "kind": "natural"}
    return {
        "models": {"blind": {"archive": blind, "batch_size": 3}, "reading": {"archive": reading, "batch_size": 3}},
        "test_sets": {
            "typed": clean,
            "swapped": dict(clean, interface="swapped", control={"type": "swapped_question", "seed": 2}),
            "silent": dict(clean, interface="silent", control={"type": "silent_question"}),
        },
        "comparisons": {
            f"{model}_{control}": {"first": {"model": model, "set": "typed"}, "second": {"model": model, "set": control}}
            for model in ("blind", "reading") for control in ("swapped", "silent")
        },
    }


@pytest.fixture(scope="module")
def listening_results(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("listening")
    raw = listening_study(answerer_archive(folder / "blind", False), answerer_archive(folder / "reading", True))
    run_study(study_from_dict(raw, "listening.json"), str(folder / "out"), progress=False)
    return json.loads((folder / "out" / "results.json").read_text())


def test_a_model_that_ignores_the_question_has_a_gap_of_zero(listening_results):
    tests = {c["label"]: c for c in listening_results["cross_comparisons"]}
    for control in ("swapped", "silent"):
        gap = tests[f"blind_{control}"]["f1"]
        assert gap["difference"] == 0 and gap["low"] == gap["high"] == 0
        assert gap["p"] == 1
    pairs = {(p["model"], p["set"]): p for p in listening_results["pairs"]}
    assert pairs[("blind", "typed")]["f1"] > 0  # it scores: the gap is 0, not both sides 0


def test_a_model_that_reads_the_question_has_a_gap(listening_results):
    tests = {c["label"]: c for c in listening_results["cross_comparisons"]}
    assert tests["reading_swapped"]["f1"]["difference"] != 0
    assert tests["reading_silent"]["f1"]["difference"] != 0
    assert tests["reading_swapped"]["questions"] == 9  # the tiny set's paragraphs have 4, 3 and 2 questions


def test_an_unknown_control_or_a_bad_setting_is_one_line_at_load_time():
    raw = listening_study("a.tar.gz", "b.tar.gz")
    raw["test_sets"]["swapped"]["control"] = {"type": "shuffled"}
    with pytest.raises(StudyError, match="no question control 'shuffled'; registered: silent_question, swapped_question"):
        study_from_dict(raw, "listening.json", require_files=False)
    raw["test_sets"]["swapped"]["control"] = {"type": "swapped_question", "seed": "x"}
    with pytest.raises(StudyError, match="test_sets.swapped.control: .*seed"):
        study_from_dict(raw, "listening.json", require_files=False)


def test_the_control_is_part_of_the_pair_key(tmp_path):
    from srcframework.studies.pairs import Fingerprints, pair_key

    archive = tmp_path / "model.tar.gz"
    archive.write_bytes(b"x")
    raw = listening_study(str(archive), str(archive))
    study = study_from_dict(raw, "listening.json")
    keys = {name: pair_key(study, "blind", name, Fingerprints()) for name in ("typed", "swapped", "silent")}
    assert len(set(keys.values())) == 3
    raw["test_sets"]["swapped"]["control"]["seed"] = 3
    again = pair_key(study_from_dict(raw, "listening.json"), "blind", "swapped", Fingerprints())
    assert again != keys["swapped"]
