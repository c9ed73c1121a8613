import pytest

from srcframework_phonetic.phonetic import PhoneticNoise, default_dictionary_path, load_index

TINY_DICTIONARY = """\
their DH EH R
there DH EH R
they're DH EH R
cat K AE T
bat B AE T
cut K AH T
cats K AE T S
read R IY D
read(2) R EH D
red R EH D
u.s. Y UW EH S  # not a plain word: never a replacement
"""


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.dict"
    path.write_text(TINY_DICTIONARY)
    return str(path)


def test_their_there_in_the_pocketsphinx_dictionary():
    index = load_index(default_dictionary_path())
    assert index.confusions("their") == ("there", "they're")
    assert PhoneticNoise(word_probability=1.0).noise(["their"]) in (["there"], ["they're"])


def test_neighbours_are_one_substitution_away_with_as_many_phones():
    index = load_index(default_dictionary_path())
    river = index._pronunciations["river"]
    neighbours = index.confusions("river")
    assert "liver" in neighbours and "river" not in neighbours
    for word in neighbours:
        assert any(
            len(p) == len(q) and sum(a != b for a, b in zip(p, q)) == 1
            for p in index._pronunciations[word]
            for q in river
        )


def test_homophones_first_then_neighbours(tiny):
    index = load_index(tiny)
    assert index.confusions("their") == ("there", "they're")
    assert index.confusions("read") == ("red",)  # through its alternate pronunciation
    assert index.confusions("cat") == ("bat", "cut")  # "cats" has one phone more
    assert index.confusions("zebra") == ()
    assert "u.s." not in index


def test_case_and_punctuation_kept(tiny):
    source = PhoneticNoise(word_probability=1.0, dictionary_path=tiny)
    noised = source.noise(["THEIR cat, Their cat?", "Why did Cat read (U.S. 1999)?"], seed=3)
    first, second = noised
    assert first.split()[0] in ("THERE", "THEY'RE") and first.split()[2] in ("There", "They're")
    assert first.endswith("?") and first.count(",") == 1
    words = second.split()
    assert words[0] == "Why" and words[1] == "did" and words[2] in ("Bat", "Cut") and words[3] == "red"
    assert second.endswith("(U.S. 1999)?")


def test_curly_apostrophe_kept(tiny):
    noised = PhoneticNoise(word_probability=1.0, dictionary_path=tiny).noise(["they’re"])[0]
    assert noised in ("their", "there")


def test_deterministic_and_independent_of_batching(tiny):
    source = PhoneticNoise(word_probability=0.5, dictionary_path=tiny)
    questions = [f"their cat {i} read there" for i in range(30)]
    assert source.noise(questions, seed=7) == source.noise(questions, seed=7)
    assert source.noise(questions, seed=7) == [source.noise([q], seed=7)[0] for q in questions]
    assert source.noise(questions, seed=7) != source.noise(questions, seed=8)
    assert source.noise(questions, seed=7) != questions


def test_probability_zero_is_the_identity(tiny):
    questions = ["their cat read there?", "THEIR"]
    assert PhoneticNoise(word_probability=0.0, dictionary_path=tiny).noise(questions, seed=1) == questions


def test_unknown_words_unchanged(tiny):
    assert PhoneticNoise(word_probability=1.0, dictionary_path=tiny).noise(["zebra's stripes"]) == ["zebra's stripes"]


def test_describe_and_bad_probability(tiny):
    assert PhoneticNoise(word_probability=0.2, dictionary_path=tiny).describe() == {
        "type": "phonetic",
        "word_probability": 0.2,
        "dictionary_path": tiny,
    }
    with pytest.raises(ValueError, match="word_probability"):
        PhoneticNoise(word_probability=1.5)


def test_empty_dictionary_is_an_error(tmp_path):
    path = tmp_path / "empty.dict"
    path.write_text("\n")
    with pytest.raises(ValueError, match="no `word PHONE"):
        load_index(str(path))
