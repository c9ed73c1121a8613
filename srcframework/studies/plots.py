"""A study's results as PNG figures (matplotlib's Agg backend, no display needed):

- `f1_by_country.png`: grouped bars of F1 per country, one series per model (and test set, where
  a model has per-country scores on several);
- `f1_vs_wer.png`: F1 against the questions' WER, one point per country (where the set has
  speakers) or per test set, one series per model: how fast accuracy falls with question noise;
- `robustness_drop.png`: grouped bars of the F1 drop from the model's clean set, per noisy test
  set, one series per model;
- `f1_intervals.png`: F1 per test set, one series per model, with the bootstrap interval as an
  error bar;
- `f1_by_wer_bucket.png`: F1 against the question's WER bucket with intervals, one panel per
  model and one line per noisy test set.

A figure with nothing to show (a study without per-country scores has no `f1_by_country.png`) is
left out rather than drawn as an empty frame. The same results give byte-identical files.
"""
import io
from typing import Dict, List, Optional, Tuple

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

PLOT_NAMES = ("f1_by_country.png", "f1_vs_wer.png", "robustness_drop.png", "f1_intervals.png", "f1_by_wer_bucket.png")
# matplotlib's tab10, then tab20's light shades of the same hues: 20 colours before one repeats
PALETTE = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:gray",
           "tab:olive", "tab:cyan", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2",
           "#c7c7c7", "#dbdb8d", "#9edae5"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def _figure(width: float, height: float = 4.0):
    figure = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(figure)
    return figure, figure.add_subplot()


def _png(figure: Figure) -> bytes:
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def _colours(results: dict) -> Dict[str, str]:
    return {model["name"]: PALETTE[i % len(PALETTE)] for i, model in enumerate(results["models"])}


def _legend_beside(axes) -> None:
    """The legend right of the plot, where it hides no bar."""
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def _grouped_bars(axes, categories: List[str], series: List[Tuple[str, str, Dict[str, float]]]) -> None:
    """Bars of `series` (label, colour, {category: value}) side by side over each category."""
    width = 0.8 / len(series)
    for number, (label, colour, values) in enumerate(series):
        xs = [i - 0.4 + width * (number + 0.5) for i, c in enumerate(categories) if c in values]
        ys = [values[c] for c in categories if c in values]
        axes.bar(xs, ys, width=width, label=label, color=colour)
    axes.set_xticks(range(len(categories)))
    axes.set_xticklabels(categories, rotation=30 if len(categories) > 6 else 0, ha="right" if len(categories) > 6 else "center")
    _legend_beside(axes)


def f1_by_country(results: dict) -> Optional[bytes]:
    colours = _colours(results)
    pairs = [pair for pair in results["pairs"] if pair["by_country"]]
    if not pairs:
        return None
    per_model: Dict[str, int] = {}
    for pair in pairs:
        per_model[pair["model"]] = per_model.get(pair["model"], 0) + 1
    countries = sorted({c for pair in pairs for c in pair["by_country"]})
    figure, axes = _figure(max(5.0, 1.0 * len(countries) + 3.0))
    series = []
    for pair in pairs:
        label = pair["model"] if per_model[pair["model"]] == 1 else f"{pair['model']} / {pair['set']}"
        series.append((label, colours[pair["model"]], {c: g["f1"] for c, g in pair["by_country"].items()}))
    _grouped_bars(axes, countries, series)
    axes.set_xlabel("country of the speaker")
    axes.set_ylabel("F1 (%)")
    axes.set_title("F1 by country")
    return _png(figure)


def wer_points(results: dict) -> List[dict]:
    """The points of `f1_vs_wer.png`: model, label, wer, f1."""
    noise = {s["name"]: s.get("question_noise") for s in results["test_sets"]}
    clean = {s["name"] for s in results["test_sets"] if s["interface"] == "clean"}
    points = []
    for pair in results["pairs"]:
        set_noise = noise[pair["set"]]
        by_country = (set_noise or {}).get("by_country") or {}
        shared = [c for c in sorted(pair["by_country"]) if c in by_country]
        if shared:
            for country in shared:
                points.append({"model": pair["model"], "label": country, "wer": by_country[country],
                               "f1": pair["by_country"][country]["f1"]})
        elif set_noise:
            points.append({"model": pair["model"], "label": pair["set"], "wer": set_noise["wer"], "f1": pair["f1"]})
        elif pair["set"] in clean:
            points.append({"model": pair["model"], "label": pair["set"], "wer": 0.0, "f1": pair["f1"]})
    return points


def f1_vs_wer(results: dict) -> Optional[bytes]:
    colours = _colours(results)
    points = wer_points(results)
    if not points:
        return None
    figure, axes = _figure(6.5, 4.5)
    for number, model in enumerate(m["name"] for m in results["models"]):
        mine = [p for p in points if p["model"] == model]
        if not mine:
            continue
        axes.scatter([p["wer"] for p in mine], [p["f1"] for p in mine], color=colours[model],
                     marker=MARKERS[number % len(MARKERS)], label=model)
        for point in mine:
            axes.annotate(point["label"], (point["wer"], point["f1"]), textcoords="offset points", xytext=(4, 3),
                          fontsize=7)
    axes.set_xlabel("question WER (%)")
    axes.set_ylabel("F1 (%)")
    axes.legend(fontsize=8)
    axes.set_title("F1 against question WER")
    return _png(figure)


def robustness_drop(results: dict) -> Optional[bytes]:
    colours = _colours(results)
    pairs = [pair for pair in results["pairs"] if pair["f1_drop"] is not None and pair["reference"]]
    if not pairs:
        return None
    sets = [s["name"] for s in results["test_sets"] if any(p["set"] == s["name"] for p in pairs)]
    figure, axes = _figure(max(5.0, 1.2 * len(sets) + 3.0))
    series = []
    for model in (m["name"] for m in results["models"]):
        values = {p["set"]: p["f1_drop"] for p in pairs if p["model"] == model}
        if values:
            series.append((model, colours[model], values))
    _grouped_bars(axes, sets, series)
    axes.axhline(0.0, color="black", linewidth=0.8)
    axes.set_xlabel("test set")
    axes.set_ylabel("F1 drop from clean (points)")
    axes.set_title("Robustness: F1 drop by noise type")
    return _png(figure)


def _error_bars(values: List[float], lows: List[float], highs: List[float]) -> List[List[float]]:
    """Error bar lengths below and above each value; a percentile interval that leaves out its
    value (a skewed resampling distribution, few contexts) is drawn up to the value, not past it."""
    return [[max(0.0, v - low) for v, low in zip(values, lows)], [max(0.0, high - v) for v, high in zip(values, highs)]]


def f1_intervals(results: dict) -> Optional[bytes]:
    colours = _colours(results)
    pairs = [pair for pair in results["pairs"] if "f1_low" in pair]
    if not pairs:
        return None
    sets = [s["name"] for s in results["test_sets"] if any(p["set"] == s["name"] for p in pairs)]
    figure, axes = _figure(max(5.0, 1.2 * len(sets) + 3.0))
    models = [m["name"] for m in results["models"] if any(p["model"] == m["name"] for p in pairs)]
    width = 0.8 / len(models)
    for number, model in enumerate(models):
        mine = {p["set"]: p for p in pairs if p["model"] == model}
        xs = [i - 0.4 + width * (number + 0.5) for i, name in enumerate(sets) if name in mine]
        chosen = [mine[name] for name in sets if name in mine]
        values = [p["f1"] for p in chosen]
        axes.bar(xs, values, width=width, label=model, color=colours[model],
                 yerr=_error_bars(values, [p["f1_low"] for p in chosen], [p["f1_high"] for p in chosen]),
                 capsize=3, ecolor="black")
    axes.set_xticks(range(len(sets)))
    axes.set_xticklabels(sets, rotation=30 if len(sets) > 4 else 0, ha="right" if len(sets) > 4 else "center")
    _legend_beside(axes)
    axes.set_xlabel("test set")
    axes.set_ylabel("F1 (%)")
    level = round(100 * (results.get("statistics") or {}).get("confidence", 0.95))
    axes.set_title(f"F1 with {level}% bootstrap intervals")
    return _png(figure)


def f1_by_wer_bucket(results: dict) -> Optional[bytes]:
    from srcframework.studies.question_types import WER_BUCKETS

    buckets = [label for label, _ in WER_BUCKETS]
    pairs = [pair for pair in results["pairs"] if pair.get("by_wer_bucket")]
    if not pairs:
        return None
    models = [m["name"] for m in results["models"] if any(p["model"] == m["name"] for p in pairs)]
    figure = Figure(figsize=(max(5.0, 4.5 * len(models)), 4.0), dpi=100)
    FigureCanvasAgg(figure)
    sets = [s["name"] for s in results["test_sets"] if any(p["set"] == s["name"] for p in pairs)]
    set_colours = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(sets)}
    first = None
    for number, model in enumerate(models):
        axes = figure.add_subplot(1, len(models), number + 1, sharey=first)
        first = first or axes
        mine = [p for p in pairs if p["model"] == model]
        for offset, pair in enumerate(mine):
            groups = pair["by_wer_bucket"]
            xs = [i + 0.06 * (offset - (len(mine) - 1) / 2) for i, b in enumerate(buckets) if b in groups]
            values = [groups[b]["f1"] for b in buckets if b in groups]
            axes.errorbar(xs, values, yerr=_error_bars(values, [groups[b]["f1_low"] for b in buckets if b in groups],
                                                       [groups[b]["f1_high"] for b in buckets if b in groups]),
                          color=set_colours[pair["set"]], marker=MARKERS[offset % len(MARKERS)], capsize=3,
                          label=pair["set"])
        axes.set_xticks(range(len(buckets)))
        axes.set_xticklabels(buckets)
        axes.set_xlabel("question WER bucket (%)")
        axes.set_ylabel("F1 (%)")
        axes.set_title(f"{model}: F1 by question WER")
        axes.legend(fontsize=7)
    return _png(figure)


def render_plots(results: dict) -> Dict[str, bytes]:
    """`{file name: PNG bytes}` of the figures that have something to show, in the order of
    `PLOT_NAMES`."""
    figures = {
        "f1_by_country.png": f1_by_country(results),
        "f1_vs_wer.png": f1_vs_wer(results),
        "robustness_drop.png": robustness_drop(results),
        "f1_intervals.png": f1_intervals(results),
        "f1_by_wer_bucket.png": f1_by_wer_bucket(results),
    }
    return {name: png for name, png in figures.items() if png is not None}
