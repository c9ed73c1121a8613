import json
import re
from pathlib import Path

import pytest
from allennlp.common import Params

import srcframework.noise.keyboard  # noqa: F401  (registers "keyboard")
from srcframework.noise.keyboard import NEIGHBOURS, KeyboardNoise
from srcframework.noise.noise_source import NoiseSource

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"

QUESTIONS = [
    "How many points did the Panthers defense surrender?",
    "What year did Tesla die? ",
    "In which  city, (and when) was the  'X.25' standard signed in 1976?",
    "WHO LED THE PANTHERS IN SACKS?",
]


def shared_file(relative: str) -> Path:
    path = SHARED_DATA / relative
    if not path.exists():
        pytest.skip(f"{path} not found: the shared data folder is not beside this checkout")
    return path


def test_neighbours_are_row_neighbours():
    assert NEIGHBOURS["q"] == "w" and NEIGHBOURS["p"] == "o"
    assert NEIGHBOURS["a"] == "s" and NEIGHBOURS["l"] == "k"
    assert NEIGHBOURS["z"] == "x" and NEIGHBOURS["m"] == "n"
    assert NEIGHBOURS["g"] == "fh" and NEIGHBOURS["v"] == "cb"
    assert len(NEIGHBOURS) == 26


def test_same_seed_same_output_and_seeds_differ():
    noise = KeyboardNoise(word_probability=0.5)
    assert noise.noise(QUESTIONS, seed=3) == noise.noise(QUESTIONS, seed=3)
    assert noise.noise(QUESTIONS, seed=3) != noise.noise(QUESTIONS, seed=4)


def test_independent_of_batch_composition():
    noise = KeyboardNoise(word_probability=0.5)
    together = noise.noise(QUESTIONS, seed=7)
    alone = [noise.noise([q], seed=7)[0] for q in QUESTIONS]
    assert together == alone
    assert noise.noise(list(reversed(QUESTIONS)), seed=7) == list(reversed(together))


def test_probability_zero_is_identity():
    assert KeyboardNoise(word_probability=0.0).noise(QUESTIONS, seed=1) == QUESTIONS


def test_probability_one_changes_one_letter_per_word_with_a_row_neighbour():
    noise = KeyboardNoise(word_probability=1.0)
    for seed in range(20):
        for clean, noised in zip(QUESTIONS, noise.noise(QUESTIONS, seed=seed)):
            assert len(noised) == len(clean)
            clean_tokens, noised_tokens = re.split(r"(\s+)", clean), re.split(r"(\s+)", noised)
            assert len(clean_tokens) == len(noised_tokens)
            for a, b in zip(clean_tokens, noised_tokens):
                changes = [(x, y) for x, y in zip(a, b) if x != y]
                if not re.search("[A-Za-z]", a):
                    assert a == b  # whitespace, digits and punctuation untouched
                    continue
                assert len(changes) == 1, (a, b)
                (x, y), = changes
                assert y.lower() in NEIGHBOURS[x.lower()]
                assert x.isupper() == y.isupper()  # case kept


def test_punctuation_digits_and_whitespace_kept():
    noise = KeyboardNoise(word_probability=1.0)
    question = QUESTIONS[2]
    for seed in range(10):
        noised = noise.noise([question], seed=seed)[0]
        assert [c for c in noised if not c.isalpha()] == [c for c in question if not c.isalpha()]
    assert noise.noise(["1976 ?! 42", "", "  "], seed=0) == ["1976 ?! 42", "", "  "]


def test_rate_is_about_word_probability():
    words = ["question"] * 2000
    noised = KeyboardNoise(word_probability=0.25).noise([" ".join(words)], seed=0)[0].split(" ")
    assert 0.22 < sum(w != "question" for w in noised) / len(words) < 0.28


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_bad_probability(p):
    with pytest.raises(ValueError, match=r"word_probability must be in \[0, 1\]"):
        KeyboardNoise(word_probability=p)


def test_bad_input():
    with pytest.raises(TypeError, match="list of questions"):
        KeyboardNoise().noise("a single question")
    with pytest.raises(TypeError, match="question string"):
        KeyboardNoise().noise([None])


def test_from_params_and_describe():
    noise = NoiseSource.from_params(Params({"type": "keyboard", "word_probability": 0.5}))
    assert isinstance(noise, KeyboardNoise)
    assert noise.describe() == {"type": "keyboard", "word_probability": 0.5}
    json.dumps(noise.describe())
    again = NoiseSource.from_params(Params(noise.describe()))
    assert again.noise(QUESTIONS, seed=2) == noise.noise(QUESTIONS, seed=2)


def test_calibrated_against_noiseqa_keyboard_set():
    """NoiseQA's synthetic keyboard set has 23.2 WER; ours must be within 5 points."""
    from srcframework.data.squad_file import load_squad_json
    from srcframework.metrics.text_noise import wer

    clean_file = shared_file("xquad/xquad.en.json")
    clean = {
        qa["id"]: qa["question"]
        for article in load_squad_json(clean_file)["data"]
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    }
    ids = sorted(clean)
    refs = [clean[i] for i in ids]
    ours = wer(refs, KeyboardNoise().noise(refs, seed=0))
    assert abs(ours - 23.2) <= 5.0, ours
