import json

import pytest

from srcframework.common.errors import did_you_mean, json_error_text


def test_did_you_mean_names_the_closest_choice_or_nothing():
    assert did_you_mean("keybord", ["misspelling", "keyboard", "asr"]) == "did you mean keyboard?"
    assert did_you_mean("zzz", ["misspelling", "keyboard"]) == ""


@pytest.mark.parametrize("text, expected", [
    ('{"type": "keyboard', "unterminated string starting at line 1, column 10"),
    ('{"a": 1,}', "expecting property name enclosed in double quotes at line 1, column 9"),
    ("", "expecting value at line 1, column 1"),
])
def test_json_error_text_is_a_whole_phrase_with_the_place(text, expected):
    with pytest.raises(json.JSONDecodeError) as caught:
        json.loads(text)
    assert json_error_text(caught.value) == expected
