import json

import matplotlib.image
import pytest
from allennlp.common.checks import ConfigurationError

from srcframework.data.errors import DatasetError
from srcframework.metrics.records import records_from_predictions
from srcframework.reports.accent import accent_report, markdown_report, write_accent_report


def record(qid, prediction, answers, question=None, original=None, **groups):
    return {
        "id": qid,
        "prediction": prediction,
        "answers": answers,
        "groups": groups,
        "question": question,
        "original_question": original,
    }


# Per record, by hand (official normalisation: lowercase, no punctuation, no a/an/the):
#   r1  "1882" vs "1882"                          EM 1  F1 1
#   r2  "engineer ossia" vs "ossia brandt"        EM 0  F1 0.5   (P = R = 1/2)
#   r3  "red" vs "red and white"                  EM 0  F1 0.5   (P = 1, R = 1/3)
#   r4  "nothing" vs "x y"                        EM 0  F1 0
#   r5  "1951" vs "1951", no country or gender    EM 1  F1 1
RECORDS = [
    record("r1", "1882", ["1882"], "when was it dredged", "When was it dredged?",
           country="US", gender="F", speaker="S1"),
    record("r2", "the engineer Ossia", ["Ossia Brandt"], "who dredge the harbour", "Who dredged the harbour?",
           country="US", gender="M", speaker="S2"),
    record("r3", "red", ["red and white"], "what colours is lighthouse", "What colours is the lighthouse painted?",
           country="IN", gender="F", speaker="S3"),
    record("r4", "nothing", ["x y"], country="IN", gender="F", speaker="S3"),
    record("r5", "1951", ["1951"], speaker="S9"),
]


def test_scores_overall_and_per_group():
    report = accent_report(RECORDS)
    overall = report["overall"]
    assert overall["count"] == 5
    assert overall["em"] == pytest.approx(100 * 2 / 5)
    assert overall["f1"] == pytest.approx(100 * 3 / 5)
    assert list(report["by_country"]) == ["IN", "US"]
    assert report["by_country"]["US"]["em"] == pytest.approx(50.0)
    assert report["by_country"]["US"]["f1"] == pytest.approx(75.0)
    assert report["by_country"]["IN"]["em"] == pytest.approx(0.0)
    assert report["by_country"]["IN"]["f1"] == pytest.approx(25.0)
    assert report["by_gender"]["F"]["em"] == pytest.approx(100 / 3)
    assert report["by_gender"]["F"]["f1"] == pytest.approx(50.0)
    assert report["by_gender"]["M"] == pytest.approx({"em": 0.0, "f1": 50.0, "count": 1, "wer": 25.0})
    assert report["by_speaker"]["S3"]["count"] == 2
    assert report["by_speaker"]["S9"]["f1"] == pytest.approx(100.0)
    assert report["f1_range"] == pytest.approx({"value": 50.0, "best": "US", "worst": "IN"})


def test_records_without_a_group_value_count_only_overall():
    report = accent_report(RECORDS)
    assert sum(s["count"] for s in report["by_country"].values()) == 4
    assert sum(s["count"] for s in report["by_gender"].values()) == 4
    assert sum(s["count"] for s in report["by_speaker"].values()) == 5


def test_wer_is_corpus_level_per_group():
    report = accent_report(RECORDS)
    # r1: 0 errors / 4 words; r2: "dredge" for "dredged", 1 / 4; r3: "the" and "painted" deleted, 2 / 6
    assert report["by_country"]["US"]["wer"] == pytest.approx(100 * 1 / 8)
    assert report["by_country"]["IN"]["wer"] == pytest.approx(100 * 2 / 6)  # r4 has no question
    assert report["overall"]["wer"] == pytest.approx(100 * 3 / 14)
    assert "wer" not in report["by_speaker"]["S9"]


def test_no_wer_without_original_questions():
    report = accent_report([record("a", "x", ["x"], country="US"), record("b", "y", ["x"], country="GB")])
    assert "wer" not in report["overall"]
    assert "WER" not in markdown_report(report)


def test_duplicate_ids_read_by_several_speakers():
    records = [
        record("q1", "1882", ["1882"], country="US", speaker="A"),
        record("q1", "1883", ["1882"], country="IN", speaker="B"),
        record("q1", "in 1882", ["1882"], country="IN", speaker="C"),
    ]
    report = accent_report(records)
    assert report["overall"]["count"] == 3
    assert report["by_country"]["IN"]["f1"] == pytest.approx(100 * (0 + 2 / 3) / 2)  # P = 1/2, R = 1
    assert report["f1_range"]["worst"] == "IN"
    assert report["f1_range"]["value"] == pytest.approx(100 - 100 / 3)


def test_f1_range_needs_two_countries():
    assert accent_report([record("a", "x", ["x"], country="US")])["f1_range"] is None
    report = accent_report(RECORDS, group_keys=("speaker",))
    assert report["f1_range"] is None
    assert set(report) == {"overall", "by_speaker", "f1_range"}


def test_no_prediction_scores_zero_and_max_over_golds():
    report = accent_report([record("a", None, ["x"]), record("b", "Quell", ["the island of Quell", "Quell"])])
    assert report["overall"]["em"] == pytest.approx(50.0)
    assert report["overall"]["f1"] == pytest.approx(50.0)


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"id": "a", "answers": ["x"]}, r"record 0 \(id 'a'\): missing key\(s\) \['prediction'\]"),
        ({"id": "a", "prediction": "x", "answers": []}, "non-empty list"),
        ({"id": "a", "prediction": 3, "answers": ["x"]}, "not a string"),
        ({"id": "a", "prediction": "x", "answers": ["x"], "groups": ["US"]}, "groups must be a dict"),
    ],
)
def test_bad_records(bad, message):
    with pytest.raises(ValueError, match=message):
        accent_report([bad])


def test_no_records():
    with pytest.raises(ValueError, match="no records"):
        accent_report([])


def predict_line(qid, answer, golds, **extra):
    return json.dumps(dict({"id": qid, "best_span_str": answer, "best_span": [0, 0], "answers": golds}, **extra))


def test_records_from_predictions(tmp_path):
    path = tmp_path / "p.jsonl"
    lines = [
        predict_line("q1", "1882", ["1882"], groups={"country": "US", "speaker": "S1"},
                     question="when dredged", original_question="When was it dredged?"),
        "",
        predict_line("q2", "x", ["y"], groups={}, question="who", original_question=None),
        predict_line("q3", "x", ["y"], question="who", original_question="None"),  # AllenNLP's sanitize(None)
    ]
    path.write_text("\n".join(lines) + "\n")
    records = records_from_predictions(path)
    assert records == [
        record("q1", "1882", ["1882"], "when dredged", "When was it dredged?", country="US", speaker="S1"),
        record("q2", "x", ["y"], "who", None),
        record("q3", "x", ["y"], "who", None),
    ]


@pytest.mark.parametrize(
    "content, message",
    [
        (predict_line("q1", "a", ["a"]) + "\n{not json\n", r"line 2: not JSON \(expecting property name .* at column 2\)"),
        ('{"id": "q1", "answers": ["a"]}\n', r"line 1: missing key\(s\) \['best_span_str'\]"),
        ("[1, 2]\n", r"the file is one JSON list \(of 2 int items\), not JSON lines"),
        (predict_line("q1", "a", []), "line 1: answers must be a non-empty list"),
        (predict_line("q1", "a", ["a"], groups="US"), "line 1: groups must be an object"),
        ("\n\n", "no predictions"),
    ],
)
def test_malformed_predictions_name_file_and_line(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(DatasetError, match=message) as info:
        records_from_predictions(path)
    assert str(path) in str(info.value)


def test_missing_predictions_file(tmp_path):
    with pytest.raises(DatasetError, match="absent.jsonl"):
        records_from_predictions(tmp_path / "absent.jsonl")


def test_write_accent_report(tmp_path):
    report = accent_report(RECORDS)
    paths = write_accent_report(report, tmp_path / "out", title="Tiny SRC")
    assert [p.name for p in paths] == ["report.json", "report.md", "f1_by_country.png"]
    assert json.loads(paths[0].read_text()) == report
    markdown = paths[1].read_text()
    assert markdown.startswith("# Tiny SRC\n")
    assert "| country | EM | F1 | count | WER |" in markdown
    assert "| US | 50.0 | 75.0 | 2 | 12.5 |" in markdown
    assert "| IN | 0.0 | 25.0 | 2 | 33.3 |" in markdown
    assert "| all | 40.0 | 60.0 | 5 | 21.4 |" in markdown
    assert "| M | 0.0 | 50.0 | 1 | 25.0 |" in markdown
    assert "| S9 | 100.0 | 100.0 | 1 | - |" in markdown
    assert "F1 range over countries: 50.0 (best US 75.0, worst IN 25.0)" in markdown
    assert paths[2].stat().st_size > 1000
    image = matplotlib.image.imread(paths[2])
    assert image.ndim == 3 and image.shape[0] == 400 and image.shape[2] in (3, 4)


def test_plot_without_countries(tmp_path):
    report = accent_report([record("a", "x", ["x"], speaker="S1")])
    paths = write_accent_report(report, tmp_path)
    assert "F1 range over countries: n/a" in paths[1].read_text()
    assert "No record has a country." in paths[1].read_text()
    assert matplotlib.image.imread(paths[2]).shape[0] == 400


def many_records():
    """40 US records (F1 of 1 on 30 of them) and 20 IN records (F1 of 1 on 5)."""
    us = [record(f"u{i}", "x" if i < 30 else "y", ["x"], country="US") for i in range(40)]
    india = [record(f"i{i}", "x" if i < 5 else "y", ["x"], country="IN") for i in range(20)]
    return us + india


def test_bootstrap_intervals_of_each_country_and_a_test_of_the_f1_range():
    import numpy as np
    from scipy import stats

    from srcframework.metrics.statistics import range_permutation_test

    records = many_records()
    report = accent_report(records, bootstrap=500, seed=3)
    assert report["intervals"] == {"bootstrap": 500, "seed": 3, "confidence": 0.95}
    # each country resampled on its own: IN is country 0 in name order (seed 3 + 1), US country 1
    means = {}
    for number, (name, hits, size) in enumerate([("IN", 5, 20), ("US", 30, 40)]):
        f1 = np.array([100.0] * hits + [0.0] * (size - hits))
        theirs = stats.bootstrap((f1,), np.mean, n_resamples=500, method="percentile", vectorized=True,
                                 rng=np.random.default_rng(3 + 1 + number)).confidence_interval
        country = report["by_country"][name]
        assert (country["f1_low"], country["f1_high"]) == pytest.approx((theirs.low, theirs.high))
        assert country["f1_low"] < country["f1"] < country["f1_high"]
    spread = report["f1_range"]
    assert spread["value"] == pytest.approx(75.0 - 25.0)
    # the range gets a permutation test of no difference between the countries, not an interval
    values = [100.0] * 5 + [0.0] * 15 + [100.0] * 30 + [0.0] * 10
    assert spread["p"] == range_permutation_test(values, ["IN"] * 20 + ["US"] * 40, 500, 3)["p"]
    assert spread["p"] < 0.01 and spread["rounds"] == 500 and "low" not in spread
    assert report["overall"]["f1_low"] < report["overall"]["f1"] < report["overall"]["f1_high"]
    markdown = markdown_report(report)
    assert f"| US | 75.0 | 75.0 [{report['by_country']['US']['f1_low']:.1f}, " in markdown
    assert f"F1 range over countries: 50.0 (p {spread['p']:.3f}, no difference between countries)" in markdown
    assert "95% percentile bootstrap interval (500 resamples" in markdown
    assert accent_report(records, bootstrap=500, seed=3) == report


def test_no_intervals_without_bootstrap():
    report = accent_report(many_records())
    assert "intervals" not in report and "f1_low" not in report["by_country"]["US"] and "p" not in report["f1_range"]
    assert "[" not in markdown_report(report)


def test_group_keys_given_as_one_string_is_a_configuration_error():
    with pytest.raises(ConfigurationError, match="group_keys must be a sequence of keys, not the string 'country'"):
        accent_report(RECORDS, group_keys="country")
