"""`NoiseSource.describe()`'s default and the helpers every source shares."""
import json
import os

import pytest
from allennlp.common import Params, Registrable

from srcframework.noise.natural import NaturalNoise
from srcframework.data.noise_source import NoiseSource, absolute_path, question_rng


class SwapCase(NoiseSource):
    def __init__(self, probability: float = 1.0, table: dict = None) -> None:
        self.probability = probability
        self.table = table or {}
        self.compiled = object()  # not a constructor argument: not described

    def noise(self, questions, seed=0, ids=None):
        return [question.swapcase() for question in questions]


class Unreadable(SwapCase):
    def __init__(self, probability: float = 1.0, engine=None) -> None:
        super().__init__(probability)
        self.engine = engine if engine is not None else object()


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(Registrable._registry[NoiseSource], "test-swap-case", (SwapCase, None))


def test_the_default_description_is_the_registered_name_and_the_settings(registered):
    source = NoiseSource.from_params(Params({"type": "test-swap-case", "probability": 0.5}))
    assert source.describe() == {"type": "test-swap-case", "probability": 0.5, "table": {}}
    again = NoiseSource.from_params(Params(json.loads(json.dumps(source.describe()))))
    assert isinstance(again, SwapCase) and again.describe() == source.describe()


def test_the_default_description_leaves_out_what_is_not_json():
    assert Unreadable(0.25).describe() == {"type": "Unreadable", "probability": 0.25}  # an unregistered class


def test_a_relative_path_is_described_as_absolute(tmp_path, monkeypatch):
    (tmp_path / "set.json").write_text(json.dumps({"data": [{"paragraphs": [{"qas": [{"id": "q", "question": "Q?"}]}]}]}))
    monkeypatch.chdir(tmp_path)
    noise = NaturalNoise("set.json")
    assert noise.path == "set.json"  # messages name the file as it was given
    assert noise.describe() == {"type": "natural", "path": str(tmp_path / "set.json"), "missing": "error"}
    assert absolute_path("https://example.org/set.json") == "https://example.org/set.json"
    assert absolute_path("a/b.txt") == os.path.join(str(tmp_path), "a", "b.txt")


def test_question_rng_depends_on_the_seed_the_question_and_the_salt_only():
    draw = question_rng(1, "Who?", "keyboard").random()
    assert question_rng(1, "Who?", "keyboard").random() == draw
    assert len({draw, question_rng(2, "Who?", "keyboard").random(), question_rng(1, "Who!", "keyboard").random(),
                question_rng(1, "Who?", "mix").random()}) == 4
