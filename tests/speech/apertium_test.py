import shutil

import pytest
from allennlp.common import Params

from srcframework.speech.apertium import ApertiumTranslator
from tests.conftest import needs_apertium_eng_spa
from srcframework.speech.engines import EngineNotFound, Translator


pytestmark = needs_apertium_eng_spa


@pytest.fixture(scope="module")
def english_to_spanish():
    return ApertiumTranslator(pair="eng-spa")


def test_round_trip(english_to_spanish):
    [spanish] = english_to_spanish.translate(["What is the capital of France?"])
    assert "capital" in spanish and "Francia" in spanish and "France" not in spanish
    [english] = ApertiumTranslator(pair="spa-eng").translate([spanish])
    assert "capital" in english and "France" in english


def test_count_stays_aligned(english_to_spanish):
    texts = [
        "Who wrote Dr. Zhivago. It was Pasternak?",
        "",
        "How many people live in St. Louis, Mo.?",
        "What is the capital of France?",
        "A question\nwith a line break",
        ".",
        "   ",
        "Is the U.S. bigger than Canada?",
    ]
    translations = english_to_spanish.translate(texts)
    assert len(translations) == len(texts)
    assert "Pasternak" in translations[0] and "Zhivago" in translations[0]
    assert translations[1] == "" and translations[6] == ""
    assert "Louis" in translations[2]
    assert "Francia" in translations[3]
    assert "\n" not in translations[4] and "línea" in translations[4]
    assert translations[5] == "."
    assert "Canadá" in translations[7]


def test_words_do_not_move_between_texts(english_to_spanish):
    # Without a sentence boundary between them Apertium reorders "the red / car" into "el coche / rojo".
    texts = ["I like the red", "car is here", "the big", "house"]
    batched = english_to_spanish.translate(texts)
    assert batched == [english_to_spanish.translate([text])[0] for text in texts]
    assert "coche" not in batched[0].lower() and "rojo" in batched[0].lower()


def test_empty_batch(english_to_spanish):
    assert english_to_spanish.translate([]) == []


def test_missing_binary(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EngineNotFound, match="apt-get install -y apertium apertium-eng-spa"):
        ApertiumTranslator()


def test_missing_pair():
    with pytest.raises(EngineNotFound, match="eng-xyz pair is not installed.*installed pairs: .*eng-spa"):
        ApertiumTranslator(pair="eng-xyz")


def test_misaligned_output_raises(monkeypatch, tmp_path):
    # A faulty apertium (it loses the last line) stands in for the real one: the guard must notice.
    real = shutil.which("apertium")
    fake = tmp_path / "apertium"
    fake.write_text(f'#!/bin/sh\nif [ "$1" = -l ]; then exec {real} -l; fi\n{real} "$@" | head -n -1\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    translator = ApertiumTranslator()
    with pytest.raises(RuntimeError, match="misaligned"):
        translator.translate(["Hello", "World"])


def test_from_params():
    translator = Translator.from_params(Params({"type": "apertium", "pair": "spa-eng"}))
    assert isinstance(translator, ApertiumTranslator) and translator.pair == "spa-eng"
