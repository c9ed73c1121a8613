from srcframework.data.tokenizers.blank_spacy import BlankSpacyTokenizer


def test_offsets_point_into_text():
    text = "Where's the U.S. office,  in 1990?"
    tokens = BlankSpacyTokenizer().tokenize(text)
    assert [t.text for t in tokens][:3] == ["Where", "'s", "the"]
    for token in tokens:
        assert text[token.idx : token.idx_end] == token.text
    assert not any(t.text.isspace() for t in tokens)


def test_lowercase_keeps_offsets():
    text = "Paris Is Big"
    tokens = BlankSpacyTokenizer(lowercase=True).tokenize(text)
    assert [t.text for t in tokens] == ["paris", "is", "big"]
    assert text[tokens[1].idx : tokens[1].idx_end] == "Is"
