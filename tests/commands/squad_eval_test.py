import argparse
import json

import pytest

from srcframework.commands.squad_eval import load_predictions, run
from srcframework.data.errors import DatasetError
from tests.conftest import FIXTURES


def args(predictions, output_file=None):
    return argparse.Namespace(
        data_file=str(FIXTURES / "squad_tiny.json"), predictions_file=str(predictions), output_file=output_file
    )


def test_official_format(tmp_path, capsys):
    gold = {"q1": "1882", "q2": "the engineer Ossia", "q5": "wrong"}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(gold))
    out = tmp_path / "score.json"
    result = run(args(path, str(out)))
    printed = json.loads(capsys.readouterr().out)
    assert printed == result == json.loads(out.read_text())
    assert result["exact_match"] == pytest.approx(100 / 9)
    assert result["f1"] == pytest.approx(100 * (1 + 0.5) / 9)  # "engineer ossia" vs "ossia brandt": P = R = 1/2


def test_predict_json_lines_format(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "q1", "best_span_str": "1882"}\n{"id": "q2", "best_span_str": "x"}\n')
    assert load_predictions(str(path)) == {"q1": "1882", "q2": "x"}


@pytest.mark.parametrize("content, message", [("[1, 2\n", "line 1"), ('{"q1": 3}', "is not a string")])
def test_bad_predictions_file(tmp_path, content, message):
    path = tmp_path / "p.json"
    path.write_text(content)
    with pytest.raises(DatasetError, match=message):
        load_predictions(str(path))
