import pytest

from srcframework.studies.seeds import mean_report, seed_figures


def report(shift: float) -> dict:
    return {
        "overall": {"em": 40.0 + shift, "f1": 50.0 + shift, "count": 4, "wer": 12.0},
        "by_country": {"India": {"em": 30.0, "f1": 40.0 + shift, "count": 2},
                       "US": {"em": 50.0, "f1": 60.0 - shift, "count": 2}},
        "by_gender": {},
        "f1_range": {"value": 20.0, "best": "US", "worst": "India"},
    }


def test_the_mean_report_averages_each_seeds_scores():
    mean = mean_report([report(0.0), report(4.0), report(8.0)])
    assert mean["overall"] == {"em": 44.0, "f1": 54.0, "count": 4, "wer": 12.0}
    assert mean["by_country"]["India"]["f1"] == 44.0 and mean["by_country"]["US"]["f1"] == 56.0
    assert mean["f1_range"] == {"value": 12.0, "best": "US", "worst": "India"}
    one = report(1.0)
    assert mean_report([one]) is one


def test_each_seed_has_its_figures_and_its_own_drop():
    clean, noisy = [report(10.0), report(20.0)], [report(0.0), report(4.0)]
    figures = seed_figures(["a.tar.gz", "b.tar.gz"], noisy, clean)
    assert figures == [
        {"seed": 0, "archive": "a.tar.gz", "em": 40.0, "f1": 50.0, "em_drop": 10.0, "f1_drop": 10.0},
        {"seed": 1, "archive": "b.tar.gz", "em": 44.0, "f1": 54.0, "em_drop": 16.0, "f1_drop": 16.0},
    ]
    assert seed_figures(["a"], noisy[:1], None)[0]["f1_drop"] is None
    assert sum(f["f1_drop"] for f in figures) / 2 == pytest.approx(
        mean_report(clean)["overall"]["f1"] - mean_report(noisy)["overall"]["f1"])
