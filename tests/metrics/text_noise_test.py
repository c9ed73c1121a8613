import pytest
import sacrebleu

from srcframework.metrics.text_noise import bleu, cer, normalize_for_wer, wer


def test_normalize_for_wer():
    assert normalize_for_wer("  How  MANY points,\tdid Tesla's team score? ") == "how many points did teslas team score"
    assert normalize_for_wer("?!") == ""


def test_wer_known_pairs():
    assert wer(["the cat sat"], ["the cat sit"]) == pytest.approx(100 / 3)
    assert wer(["How many points?"], ["how many points"]) == 0.0  # case and punctuation are free
    assert wer(["a b", "c d e f"], ["a b", "c x e"]) == pytest.approx(100 * 2 / 6)  # corpus level
    assert wer(["a b"], ["a b c d"]) == 100.0


def test_cer_known_pairs():
    assert cer(["abcd"], ["abxd"]) == 25.0
    assert cer(["Ab, cd!"], ["ab  cd"]) == 0.0
    assert cer(["ab cd"], ["abcd"]) == 20.0  # spaces count


def test_bleu_known_pairs():
    assert bleu(["The cat sat on the mat."], ["the cat sat on the mat."]) == pytest.approx(100.0)
    # precisions 5/6, 3/5, 2/4, 1/3, no brevity penalty
    expected = 100 * (5 / 6 * 3 / 5 * 2 / 4 * 1 / 3) ** 0.25
    assert bleu(["the cat sat on the mat"], ["the cat sat on a mat"]) == pytest.approx(expected)
    refs, hyps = ["How many points did they score?", "Who won?"], ["how many pints did they score", "who wan?"]
    assert bleu(refs, hyps) == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs], lowercase=True).score)


def test_bad_input():
    with pytest.raises(ValueError, match="2 references but 1 hypotheses"):
        wer(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="no texts"):
        cer([], [])
    with pytest.raises(TypeError, match="single string"):
        bleu("a b", "a b")
    with pytest.raises(ValueError, match="empty after normalisation"):
        wer(["?"], ["a"])
    with pytest.raises(TypeError, match="hypothesis 1 is a NoneType"):
        wer(["a", "b"], ["a", None])
