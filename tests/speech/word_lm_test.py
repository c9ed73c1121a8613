import pytest

from srcframework.speech import word_lm
from srcframework.speech.engines import EngineNotFound
from srcframework.speech.word_lm import arpa_counts, arpa_words, build_word_lm


def test_the_lm_of_squad_questions_spells_every_word_in_the_recognisers_characters(squad_dev_lm):
    counts = arpa_counts(squad_dev_lm)
    assert set(counts) == {"1-grams", "2-grams", "3-grams"}
    assert counts["1-grams"] > 2000 and counts["3-grams"] > counts["1-grams"]
    words = arpa_words(squad_dev_lm)
    assert len(words) == counts["1-grams"] - 3  # <s>, </s> and <unk> left out
    assert {"what", "who", "the", "what's"} <= set(words)
    assert all(w == w.lower() and "?" not in w and " " not in w for w in words)


def test_build_counts_sentences_and_words(tmp_path):
    sentences = ["What is the capital of France?", "Who wrote it?", "  ", "What is it?"] * 3
    counts = build_word_lm(sentences, str(tmp_path / "lm.arpa"), order=2, smoothing="wb")
    assert counts["sentences"] == 9 and counts["words"] == 3 * (6 + 3 + 3)
    assert set(arpa_words(str(tmp_path / "lm.arpa"))) == {"what", "is", "the", "capital", "of", "france", "who", "wrote", "it"}
    assert counts["1-grams"] == 9 + 3


def test_bad_inputs_are_one_line_errors(tmp_path, monkeypatch):
    out = str(tmp_path / "lm.arpa")
    with pytest.raises(ValueError, match="no sentence"):
        build_word_lm(["?!", ""], out)
    with pytest.raises(ValueError, match="order must be at least 1"):
        build_word_lm(["a b"], out, order=0)
    with pytest.raises(ValueError, match="unknown smoothing 'kn'"):
        build_word_lm(["a b"], out, smoothing="kn")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        arpa_words(str(tmp_path / "missing.arpa"))
    (tmp_path / "plain.txt").write_text("just words\n")
    with pytest.raises(ValueError, match="not an ARPA file"):
        arpa_words(str(tmp_path / "plain.txt"))
    monkeypatch.setattr(word_lm, "TLM_PATHS", ())
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EngineNotFound, match="apt-get install irstlm"):
        build_word_lm(["a b"], out)
