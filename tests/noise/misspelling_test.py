import json
import os
import re
from pathlib import Path

import pytest
from allennlp.common import Params

import srcframework.noise.misspelling  # noqa: F401  (registers "misspelling")
from srcframework.noise.misspelling import MisspellingNoise, match_case, read_misspellings
from srcframework.noise.noise_source import NoiseSource

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"

LIST = """\
# a comment, then a blank line

abandonned->abandoned
thier->their
teh->the
hte->the
accension->accession, ascension
alot->a lot, allot
dosen't->doesn't
"""

QUESTIONS = [
    "The team abandoned their plan, didn't they?",
    "Who abandoned THE ship (in the end)?",
    "What doesn't the accession need?",
]


@pytest.fixture
def list_file(tmp_path):
    path = tmp_path / "misspellings.txt"
    path.write_text(LIST, encoding="utf-8")
    return str(path)


def test_reads_right_to_wrongs(list_file):
    misspellings = read_misspellings(list_file)
    assert misspellings["the"] == ["teh", "hte"]
    assert misspellings["accession"] == ["accension"] and misspellings["ascension"] == ["accension"]
    assert misspellings["allot"] == ["alot"] and "a lot" not in misspellings  # several words: unused
    assert misspellings["doesn't"] == ["dosen't"]


def test_replaces_known_words_keeping_case_and_the_rest(list_file):
    noise = MisspellingNoise(list_file)  # word_probability 1: every known word is misspelled
    for seed in range(10):
        first, second, third = noise.noise(QUESTIONS, seed=seed)
        assert re.fullmatch(r"(Teh|Hte) team abandonned thier plan, didn't they\?", first), first
        assert re.fullmatch(r"Who abandonned (TEH|HTE) ship \(in (teh|hte) end\)\?", second), second
        assert re.fullmatch(r"What dosen't (teh|hte) accension need\?", third), third


def test_match_case():
    assert match_case("their", "thier") == "thier"
    assert match_case("Their", "thier") == "Thier"
    assert match_case("THEIR", "thier") == "THIER"
    assert match_case("A", "s") == "S"


def test_determinism_and_batch_independence(list_file):
    noise = MisspellingNoise(list_file, word_probability=0.5)
    together = noise.noise(QUESTIONS, seed=5)
    assert together == noise.noise(QUESTIONS, seed=5)
    assert noise.noise(QUESTIONS[1:], seed=5) == together[1:]
    many = ["the " * 40] * 1
    assert noise.noise(many, seed=1) != noise.noise(many, seed=2)


def test_probability_zero_is_identity(list_file):
    assert MisspellingNoise(list_file, word_probability=0.0).noise(QUESTIONS, seed=3) == QUESTIONS


def test_missing_file_is_named(tmp_path):
    missing = tmp_path / "nowhere.txt"
    with pytest.raises(FileNotFoundError, match="nowhere.txt"):
        MisspellingNoise(str(missing))


@pytest.mark.parametrize("line", ["no arrow here", "->right", "wrong->", "wrong->a, , b"])
def test_malformed_line_names_file_and_line(tmp_path, line):
    path = tmp_path / "bad.txt"
    path.write_text(f"teh->the\n{line}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.txt, line 2: expected 'wrong->right"):
        MisspellingNoise(str(path))


def test_empty_list_and_bad_probability(tmp_path, list_file):
    path = tmp_path / "empty.txt"
    path.write_text("# nothing\n", encoding="utf-8")
    with pytest.raises(ValueError, match="empty.txt: no usable"):
        MisspellingNoise(str(path))
    with pytest.raises(ValueError, match=r"word_probability must be in \[0, 1\]"):
        MisspellingNoise(list_file, word_probability=2)


def test_from_params_and_describe(list_file):
    noise = NoiseSource.from_params(Params({"type": "misspelling", "path": list_file, "word_probability": 0.5}))
    assert isinstance(noise, MisspellingNoise)
    assert noise.describe() == {"type": "misspelling", "path": list_file, "word_probability": 0.5}
    json.dumps(noise.describe())


def test_wikipedia_list():
    path = SHARED_DATA / "misspellings" / "wikipedia_common_misspellings.txt"
    if not path.exists():
        pytest.skip(f"{path} not found: the shared data folder is not beside this checkout")
    noise = MisspellingNoise(str(path))
    assert len(noise.misspellings) > 3000
    assert "abandonned" in noise.misspellings["abandoned"]
    question = "Which government received the most votes?"
    noised = noise.noise([question], seed=0)[0]
    assert noised != question and noised.endswith("?") and len(noised.split()) == len(question.split())


def test_the_shared_wikipedia_list_is_the_default_and_is_recorded(monkeypatch):
    from srcframework.noise.misspelling import default_list

    path = SHARED_DATA / "misspellings" / "wikipedia_common_misspellings.txt"
    if not path.exists():
        pytest.skip(f"{path} not found: the shared data folder is not beside this checkout")
    monkeypatch.setenv("SHARED_DATA", str(SHARED_DATA))
    noise = NoiseSource.from_params(Params({"type": "misspelling"}))
    assert noise.path == default_list() == str(path.resolve())
    assert noise.describe() == {"type": "misspelling", "path": noise.path, "word_probability": 1.0}
    with open(noise.path, encoding="utf-8") as handle:
        assert sum(1 for _ in handle) == 4279
    assert "abandonned" in noise.misspellings["abandoned"]
    question = "Which government received the most votes?"
    assert noise.noise([question], seed=0)[0] != question


def test_a_missing_default_list_names_the_path(monkeypatch, tmp_path):
    monkeypatch.setenv("SHARED_DATA", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="wikipedia_common_misspellings.txt"):
        NoiseSource.from_params(Params({"type": "misspelling"}))


def test_a_missing_default_list_names_shared_data(monkeypatch, tmp_path):
    monkeypatch.setenv("SHARED_DATA", str(tmp_path / "shared"))
    with pytest.raises(FileNotFoundError) as set_there:
        NoiseSource.from_params(Params({"type": "misspelling"}))
    assert str(set_there.value).endswith(
        f"not found: it is read from the shared data folder (SHARED_DATA={tmp_path / 'shared'}, which is "
        f"{tmp_path / 'shared'}); set SHARED_DATA to the folder that holds misspellings/wikipedia_common_misspellings.txt")
    monkeypatch.delenv("SHARED_DATA")
    monkeypatch.chdir(tmp_path)  # a clone without ../shared beside it
    with pytest.raises(FileNotFoundError, match=r"\(SHARED_DATA is not set, so \.\./shared/data from the working "
                                                r"directory, which is /"):
        NoiseSource.from_params(Params({"type": "misspelling"}))
    with pytest.raises(FileNotFoundError) as elsewhere:  # a list of the user's own is only named
        MisspellingNoise(str(tmp_path / "mine.txt"))
    assert "SHARED_DATA" not in str(elsewhere.value)
