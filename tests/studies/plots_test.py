import copy
import io
import json

import pytest
from matplotlib.image import imread

from srcframework.studies.plots import PLOT_NAMES, render_plots, wer_points


@pytest.fixture(scope="module")
def results(accent_study_dir):
    return json.loads((accent_study_dir / "results.json").read_text())


def test_three_valid_deterministic_pngs(results):
    images = render_plots(results)
    assert tuple(images) == PLOT_NAMES
    for name, payload in images.items():
        pixels = imread(io.BytesIO(payload), format="png")
        assert pixels.ndim == 3 and pixels.shape[0] >= 300 and pixels.shape[1] >= 400, name
        assert pixels.std() > 0.05, f"{name} is blank"
    assert render_plots(copy.deepcopy(results)) == images


def test_wer_points_per_country_per_noise_type_and_clean_at_zero(results):
    points = wer_points(results)
    by_country = next(s for s in results["test_sets"] if s["name"] == "accent")["question_noise"]["by_country"]
    accent = next(p for p in results["pairs"] if p["model"] == "tiny" and p["set"] == "accent")
    tiny = [p for p in points if p["model"] == "tiny"]
    for country, wer in by_country.items():
        assert {"model": "tiny", "label": country, "wer": wer, "f1": accent["by_country"][country]["f1"]} in tiny
    clean = next(p for p in results["pairs"] if p["model"] == "tiny" and p["set"] == "clean")
    assert {"model": "tiny", "label": "clean", "wer": 0.0, "f1": clean["f1"]} in tiny
    keyboard = next(s for s in results["test_sets"] if s["name"] == "keyboard")["question_noise"]
    assert any(p["label"] == "keyboard" and p["wer"] == keyboard["wer"] for p in tiny)
    # 4 countries on each of 2 accented sets, clean, keyboard; twin: clean and 4 countries
    assert len(tiny) == 10 and len(points) == 15


def test_figures_change_with_the_results_and_are_left_out_when_empty(results):
    images = render_plots(results)
    plain = copy.deepcopy(results)
    for item in plain["pairs"]:
        item.update(by_country={}, f1_drop=None, reference=None)
    empty = render_plots(plain)
    assert "f1_by_country.png" not in empty and "robustness_drop.png" not in empty
    assert list(empty) == [name for name in PLOT_NAMES if name in empty]
    shifted = copy.deepcopy(results)
    shifted["pairs"][0]["f1"] += 10.0
    assert render_plots(shifted)["f1_vs_wer.png"] != images["f1_vs_wer.png"]


def test_interval_figures_draw_the_intervals_and_are_left_out_when_empty(results):
    images = render_plots(results)
    wider = copy.deepcopy(results)
    wider["pairs"][0]["f1_low"] -= 10.0
    assert render_plots(wider)["f1_intervals.png"] != images["f1_intervals.png"]
    bucket = next(p for p in wider["pairs"] if p["by_wer_bucket"])
    next(iter(bucket["by_wer_bucket"].values()))["f1_high"] += 10.0
    assert render_plots(wider)["f1_by_wer_bucket.png"] != images["f1_by_wer_bucket.png"]
    plain = copy.deepcopy(results)
    for item in plain["pairs"]:
        item["by_wer_bucket"] = {}
        del item["f1_low"]
    empty = render_plots(plain)
    assert "f1_intervals.png" not in empty and "f1_by_wer_bucket.png" not in empty
    nothing = dict(plain, pairs=[], test_sets=[])
    assert render_plots(nothing) == {}


def test_twenty_models_get_twenty_colours():
    from srcframework.studies.plots import _colours

    colours = _colours({"models": [{"name": f"m{i}"} for i in range(21)]})
    assert len(set(colours[f"m{i}"] for i in range(20))) == 20
    assert colours["m20"] == colours["m0"]


def test_an_interval_that_leaves_out_its_value_is_drawn_up_to_the_value():
    from srcframework.studies.plots import _error_bars

    assert _error_bars([50.0, 60.0], [40.0, 61.0], [55.0, 70.0]) == [[10.0, 0.0], [5.0, 10.0]]
    assert _error_bars([50.0], [45.0], [48.0]) == [[5.0], [0.0]]
