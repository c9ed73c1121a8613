import json

import pytest
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError

import srcframework.noise  # noqa: F401  (registers "blank")
from srcframework.data.dataset_readers.squad import SquadReader
from srcframework.jobs.challenge_set import make_challenge_set
from srcframework.noise.blank import BlankQuestion
from srcframework.noise.noise_source import NoiseSource
from tests.conftest import FIXTURES


def test_every_question_becomes_the_token_and_the_readers_accept_it(tmp_path):
    out = tmp_path / "blind.json"
    make_challenge_set(str(FIXTURES / "squad_tiny.json"), str(out), {"type": "blank"}, progress=False)
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
    with pytest.raises(ConfigurationError, match="empty"):
        BlankQuestion(" ")
    assert NoiseSource.from_params(Params({"type": "blank", "token": "what"})).noise(["a", "b"]) == ["what", "what"]
