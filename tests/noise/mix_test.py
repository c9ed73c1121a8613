import json
from collections import Counter
from typing import List

import pytest
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError

import srcframework.noise.keyboard  # noqa: F401  (registers "keyboard")
import srcframework.noise.misspelling  # noqa: F401  (registers "misspelling")
import srcframework.noise.mix  # noqa: F401  (registers "mix")
from srcframework.noise.keyboard import KeyboardNoise
from srcframework.noise.mix import NoiseMix
from srcframework.noise.noise_source import NoiseSource


class Tag(NoiseSource):
    """Prefixes a tag (and the id, when given); records every call. Not registered."""

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.calls = []

    def noise(self, questions: List[str], seed: int = 0, ids: List[str] = None) -> List[str]:
        self.calls.append(list(questions))
        return [f"{self.tag}{'' if ids is None else ids[i]}:{q}" for i, q in enumerate(questions)]

    def describe(self) -> dict:
        return {"type": "tag", "tag": self.tag}


QUESTIONS = [f"question number {i}?" for i in range(200)]


def test_each_source_called_once_in_order_and_reassembled():
    a, b = Tag("A"), Tag("B")
    noised = NoiseMix([a, b]).noise(QUESTIONS, seed=0)
    assert len(a.calls) == 1 and len(b.calls) == 1
    assert sorted(a.calls[0] + b.calls[0]) == sorted(QUESTIONS)
    assert a.calls[0] == [q for q in QUESTIONS if q in set(a.calls[0])]  # input order kept
    for clean, result in zip(QUESTIONS, noised):
        assert result in (f"A:{clean}", f"B:{clean}")


def test_ids_are_passed_with_their_questions():
    ids = [f"id{i}" for i in range(len(QUESTIONS))]
    noised = NoiseMix([Tag("A"), Tag("B")]).noise(QUESTIONS, ids=ids)
    for qid, clean, result in zip(ids, QUESTIONS, noised):
        assert result.endswith(f"{qid}:{clean}")
    with pytest.raises(ValueError, match="200 questions but 1 ids"):
        NoiseMix([Tag("A")]).noise(QUESTIONS, ids=["x"])


def test_weights_and_keep_clean():
    noised = NoiseMix([Tag("A"), Tag("B")], weights=[3, 1], keep_clean=0.2).noise(QUESTIONS, seed=1)
    counts = Counter(result.split(":")[0] if ":" in result else "clean" for result in noised)
    assert 20 <= counts["clean"] <= 60 and counts["A"] > 2 * counts["B"] > 0
    assert NoiseMix([Tag("A"), Tag("B")], weights=[0, 1]).noise(QUESTIONS) == [f"B:{q}" for q in QUESTIONS]
    assert NoiseMix([Tag("A")], keep_clean=1.0).noise(QUESTIONS) == QUESTIONS


def test_unused_source_not_called():
    a, b = Tag("A"), Tag("B")
    NoiseMix([a, b], weights=[1, 0]).noise(QUESTIONS)
    assert b.calls == []


def test_determinism_batch_independence_and_seeds():
    mix = NoiseMix([KeyboardNoise(word_probability=1.0), Tag("B")], keep_clean=0.3)
    together = mix.noise(QUESTIONS, seed=4)
    assert together == mix.noise(QUESTIONS, seed=4)
    assert mix.noise(QUESTIONS[150:], seed=4) == together[150:]
    assert [mix.noise([q], seed=4)[0] for q in QUESTIONS[:20]] == together[:20]
    assert mix.noise(QUESTIONS, seed=5) != together


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"sources": []}, "at least one"),
        ({"sources": [Tag("A")], "weights": [1, 2]}, "1 sources but 2 weights"),
        ({"sources": [Tag("A"), Tag("B")], "weights": [1, -1]}, "non-negative"),
        ({"sources": [Tag("A"), Tag("B")], "weights": [0, 0]}, "not all zero"),
        ({"sources": [Tag("A")], "weights": [float("nan")]}, "finite"),
        ({"sources": [Tag("A")], "keep_clean": 1.5}, r"keep_clean must be in \[0, 1\]"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        NoiseMix(**kwargs)


def test_bad_source_and_bad_results():
    with pytest.raises(TypeError, match=r"sources\[1\] is a str"):
        NoiseMix([Tag("A"), "keyboard"])

    class Short(Tag):
        def noise(self, questions, seed=0, ids=None):
            return questions[:-1]

    with pytest.raises(RuntimeError, match="returned 1 questions for 2"):
        NoiseMix([Short("S")]).noise(["a?", "b?"])


def test_from_params_and_describe(tmp_path):
    path = tmp_path / "list.txt"
    path.write_text("teh->the\n", encoding="utf-8")
    config = {
        "type": "mix",
        "sources": [{"type": "keyboard", "word_probability": 0.5}, {"type": "misspelling", "path": str(path)}],
        "weights": [2, 1],
        "keep_clean": 0.1,
    }
    mix = NoiseSource.from_params(Params(json.loads(json.dumps(config))))
    assert isinstance(mix, NoiseMix)
    described = mix.describe()
    assert described == {
        "type": "mix",
        "sources": [
            {"type": "keyboard", "word_probability": 0.5},
            {"type": "misspelling", "path": str(path), "word_probability": 1.0},
        ],
        "weights": [2.0, 1.0],
        "keep_clean": 0.1,
    }
    again = NoiseSource.from_params(Params(json.loads(json.dumps(described))))
    assert again.noise(QUESTIONS, seed=3) == mix.noise(QUESTIONS, seed=3)
    with pytest.raises(ConfigurationError):
        NoiseSource.from_params(Params({"type": "mix", "sources": [{"type": "no-such-noise"}]}))
