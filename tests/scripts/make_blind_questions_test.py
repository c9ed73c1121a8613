import json
import subprocess
import sys

import pytest

from srcframework.data.dataset_readers.squad import SquadReader
from tests.conftest import FIXTURES, ROOT


def test_every_question_becomes_the_token_and_the_readers_accept_it(tmp_path):
    out = tmp_path / "blind.json"
    done = subprocess.run([sys.executable, str(ROOT / "scripts/make_blind_questions.py"), str(FIXTURES / "squad_tiny.json"),
                           str(out)], capture_output=True, text=True, check=True)
    assert "wrote 9 questions" in done.stdout
    original = json.loads((FIXTURES / "squad_tiny.json").read_text())
    written = json.loads(out.read_text())
    pairs = [(a, b) for x, y in zip(original["data"], written["data"])
             for p, q in zip(x["paragraphs"], y["paragraphs"]) for a, b in zip(p["qas"], q["qas"])]
    assert len(pairs) == 9
    for before, after in pairs:
        assert after["question"] == "?" and after["original_question"] == before["question"]
        assert after["id"] == before["id"] and after["answers"] == before["answers"]
    instances = list(SquadReader().read(str(out)))
    assert instances and all([t.text for t in i["question"].tokens] == ["?"] for i in instances)


def test_an_empty_token_is_refused():
    sys.path.insert(0, str(ROOT / "scripts"))
    from make_blind_questions import blind

    with pytest.raises(ValueError, match="empty"):
        blind({"data": []}, " ")
