import pytest

from srcframework.studies.question_types import QUESTION_TYPES, length_bucket, question_type, wer_bucket


@pytest.mark.parametrize(
    "question, expected",
    [
        ("What is the capital of Normandy?", "what"),
        ("In what year did the Normans arrive?", "what"),
        ("Who ruled the duchy of Normandy?", "who"),
        ("Whose army won the battle?", "who"),
        ("To whom did the king give the land?", "who"),
        ("When were the Normans in Normandy?", "when"),
        ("Where is the Velmont harbour?", "where"),
        ("Why did the harbour close?", "why"),
        ("Which team won Super Bowl 50?", "which"),
        ("The Panthers beat which team?", "which"),
        ("How many people live in Warsaw?", "how many/much"),
        ("How much did the bridge cost?", "how many/much"),
        ("How old was Tesla?", "other how"),
        ("how did the war end", "other how"),
        ("Name the river that flows through Warsaw.", "other"),
        ("", "other"),
        ("WHAT's the name of the ship?", "what"),
        ("What did the man who founded the city build?", "what"),  # the first wh-word decides
        ("Somehow, the river froze: what happened?", "what"),  # "somehow" is not "how"
    ],
)
def test_question_type_from_the_first_wh_word(question, expected):
    assert question_type(question) == expected
    assert expected in QUESTION_TYPES


def test_length_buckets():
    assert [length_bucket(" ".join(["w"] * n)) for n in (1, 5, 6, 8, 9, 11, 12, 15, 16, 40)] == [
        "1-5", "1-5", "6-8", "6-8", "9-11", "9-11", "12-15", "12-15", "16+", "16+",
    ]


def test_wer_buckets_exclude_their_lower_bound():
    assert [wer_bucket(w) for w in (0.0, 0.1, 20.0, 20.5, 40.0, 59.9, 60.0, 60.1, 250.0)] == [
        "0", "0-20", "0-20", "20-40", "20-40", "40-60", "40-60", "60+", "60+",
    ]
