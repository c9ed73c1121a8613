import importlib.util
import json
import os
from pathlib import Path

import pytest

from srcframework.metrics.squad import evaluate, exact_match_score, f1_score, normalize_answer
from srcframework.metrics.squad_em_f1 import SquadEmAndF1
from tests.conftest import ROOT, shared_file


@pytest.mark.parametrize(
    "raw, normalized",
    [
        ("The Eiffel Tower", "eiffel tower"),  # lowercase + article
        ("an apple, a pear!", "apple pear"),  # punctuation + articles
        ("  theory   of\tthe\nmind ", "theory of mind"),  # whitespace; 'the' only as a word
        ("Anthem", "anthem"),
        ("U.S.-led", "usled"),
        ("a", ""),
    ],
)
def test_normalize(raw, normalized):
    assert normalize_answer(raw) == normalized


def test_exact_match_and_f1_known_pairs():
    assert exact_match_score("the Denver Broncos", "Denver Broncos.")
    assert not exact_match_score("Denver", "Denver Broncos")
    assert f1_score("Denver", "Denver Broncos") == pytest.approx(2 * 1 * 0.5 / 1.5)
    assert f1_score("a the", "Broncos") == 0.0
    assert f1_score("in 1874 and 1874", "1874") == pytest.approx(2 * 0.25 * 1 / (0.25 + 1))  # bag counts


def test_evaluate_max_over_golds_and_unanswered(capsys):
    data = [{"paragraphs": [{"qas": [
        {"id": "a", "answers": [{"text": "Denver Broncos"}, {"text": "Broncos"}]},
        {"id": "b", "answers": [{"text": "1874"}]},
    ]}]}]
    result = evaluate(data, {"a": "broncos"})
    assert result == {"exact_match": 50.0, "f1": 50.0}
    assert "Unanswered question b" in capsys.readouterr().err


def test_running_metric():
    metric = SquadEmAndF1()
    metric("Denver", ["Denver Broncos", "Denver"])
    metric("x", ["y"])
    assert metric.get_metric(reset=True) == {"em": 0.5, "f1": 0.5}
    assert metric.get_metric() == {"em": 0.0, "f1": 0.0}


def load_reference():
    """allennlp-models' port of the official evaluate-v1.1 script, from `make install`'s bench site."""
    site = Path(os.environ.get("SRCFRAMEWORK_BENCH_SITE", ROOT / ".venv" / "bench-site"))
    path = site / "allennlp_models" / "rc" / "tools" / "squad.py"
    if not path.exists():
        pytest.skip(f"{path} not found: run `make install` to install allennlp-models into the bench site")
    spec = importlib.util.spec_from_file_location("reference_squad", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_matches_reference_implementation_on_real_data():
    """Agrees with allennlp-models' port of the official script to 1e-9 on SQuAD dev. (That port
    follows v2.0 in one corner: an answer that normalises to nothing scores F1 1 against a gold
    that does too; no such pair occurs in these predictions.)"""
    reference = load_reference()
    path = shared_file("squad/dev-v1.1.json")
    dataset = json.load(open(path))["data"]
    # deterministic, varied predictions: gold, partial gold, wrong text, padded with articles
    predictions = {}
    for i, qa in enumerate(q for a in dataset for p in a["paragraphs"] for q in p["qas"]):
        gold = qa["answers"][i % len(qa["answers"])]["text"]
        predictions[qa["id"]] = [gold, gold.split()[0], "the " + gold + "!", "nothing here"][i % 4]
    ours = evaluate(dataset, predictions)
    em = f1 = total = 0
    for article in dataset:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                golds = [a["text"] for a in qa["answers"]]
                exact, f1_score_ = reference.get_metric_score(predictions[qa["id"]], golds)
                em += exact
                f1 += f1_score_
                total += 1
    assert abs(ours["exact_match"] - 100.0 * em / total) < 1e-9
    assert abs(ours["f1"] - 100.0 * f1 / total) < 1e-9
    assert 40 < ours["f1"] < 90
