"""Accent-aware scores of spoken-question QA (SQuAD-SRC): SQuAD v1.1 EM/F1 overall and per
country, gender and speaker, and the F1 range (best country's F1 minus the worst's).

The records are prediction records (`srcframework.metrics.records`; group keys may be missing,
`question` and `original_question` are optional). Where both are strings the corpus WER (%) of the questions against their originals is reported too, over
the records of each group that have them. The same id may occur in several records (one question
read by several speakers); every record counts once. A record without a value for a group key is
left out of that key's groups but counts in the overall scores.

With `bootstrap=N`, the report also gives percentile bootstrap intervals (95%) of the overall
F1 (records resampled with replacement) and of each country's F1 (its own records resampled), and
the F1 range gets the `p` of a permutation test of no difference between the countries (the
country labels shuffled over the records, `N` rounds; `metrics.statistics.range_permutation_test`)
instead of an interval: the range of resampled means is biased upward where countries score alike,
so a bootstrap interval of it can lie above the observed range.
"""
import json
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence

import numpy as np
from allennlp.common.checks import ConfigurationError

from srcframework.common.files import atomic_output, write_text_atomic
from srcframework.metrics.records import GROUP_KEYS, question_pairs
from srcframework.metrics.squad import exact_match_score, f1_score, metric_max_over_ground_truths
from srcframework.metrics.statistics import CONFIDENCE, bootstrap_indices, percentile_interval, range_permutation_test
from srcframework.metrics.text_noise import wer



def _check_record(index: int, record: dict) -> None:
    where = f"record {index} (id {record.get('id')!r})" if isinstance(record, dict) else f"record {index}"
    if not isinstance(record, dict):
        raise ValueError(f"{where}: expected a dict, got {type(record).__name__}")
    missing = [key for key in ("id", "prediction", "answers") if key not in record]
    if missing:
        raise ValueError(f"{where}: missing key(s) {missing}")
    if record["prediction"] is not None and not isinstance(record["prediction"], str):
        raise ValueError(f"{where}: prediction is a {type(record['prediction']).__name__}, not a string")
    answers = record["answers"]
    if not isinstance(answers, list) or not answers or not all(isinstance(a, str) for a in answers):
        raise ValueError(f"{where}: answers must be a non-empty list of gold strings, got {answers!r}")
    if not isinstance(record.get("groups") or {}, dict):
        raise ValueError(f"{where}: groups must be a dict, got {type(record['groups']).__name__}")


def _scores(records: List[dict]) -> dict:
    """EM, F1 (0-100) and count of some records, and their corpus WER where they have questions."""
    em = f1 = 0.0
    for record in records:
        prediction = record["prediction"]
        if prediction is not None:
            em += metric_max_over_ground_truths(exact_match_score, prediction, record["answers"])
            f1 += metric_max_over_ground_truths(f1_score, prediction, record["answers"])
    refs, hyps = question_pairs(records)
    count = len(records)
    scores = {"em": 100.0 * em / count, "f1": 100.0 * f1 / count, "count": count}
    if refs:
        try:
            scores["wer"] = wer(refs, hyps)
        except ValueError:  # every original question is empty after normalisation
            pass
    return scores


def f1_range(by_country: Dict[str, dict]) -> Optional[dict]:
    """Best country's F1 minus the worst's, with their names; `None` under two countries. Ties go
    to the name that sorts first."""
    if len(by_country) < 2:
        return None
    names = sorted(by_country)
    best = max(names, key=lambda name: by_country[name]["f1"])
    worst = min(names, key=lambda name: by_country[name]["f1"])
    return {"value": by_country[best]["f1"] - by_country[worst]["f1"], "best": best, "worst": worst}


def _record_f1(record: dict) -> float:
    prediction = record["prediction"]
    return 0.0 if prediction is None else 100.0 * metric_max_over_ground_truths(f1_score, prediction, record["answers"])


def add_intervals(report: dict, records: List[dict], bootstrap: int, seed: int = 0) -> dict:
    """Add `f1_low`/`f1_high` to the overall scores and to each country, the `p` (and `rounds`) of
    a permutation test of no difference between the countries to the F1 range, and `intervals:
    {"bootstrap", "seed", "confidence"}` to `report`; each country is resampled on its own (seeded
    by its place in name order)."""
    f1 = np.array([_record_f1(record) for record in records])
    low, high = percentile_interval(f1[bootstrap_indices(f1.size, bootstrap, seed)].mean(axis=1))
    report["overall"].update(f1_low=low, f1_high=high)
    countries = report.get("by_country") or {}
    members = {name: [] for name in countries}
    for index, record in enumerate(records):
        country = str((record.get("groups") or {}).get("country", ""))
        if country in members:
            members[country].append(index)
    for number, name in enumerate(sorted(countries)):
        mine = f1[members[name]]
        means = mine[bootstrap_indices(mine.size, bootstrap, seed + 1 + number)].mean(axis=1)
        low, high = percentile_interval(means)
        countries[name].update(f1_low=low, f1_high=high)
    if report.get("f1_range"):
        kept = [index for name in sorted(countries) for index in members[name]]
        labels = [name for name in sorted(countries) for _ in members[name]]
        test = range_permutation_test(f1[kept], labels, bootstrap, seed)
        report["f1_range"].update(p=test["p"], rounds=test["rounds"])
    report["intervals"] = {"bootstrap": bootstrap, "seed": seed, "confidence": CONFIDENCE}
    return report


def accent_report(
    records: Iterable[dict], group_keys: Sequence[str] = GROUP_KEYS, bootstrap: Optional[int] = None, seed: int = 0
) -> dict:
    """
    SQuAD v1.1 EM/F1 (0-100) overall and per group, as
    `{"overall": {"em", "f1", "count"[, "wer"]}, "by_<key>": {value: {...}} for each group key,
    "f1_range": {"value", "best", "worst"} over countries, or None}`. Groups are sorted by name.
    A bad record raises a `ValueError` naming its position and id. With `bootstrap` (resamples)
    the overall F1, each country's F1 and the F1 range get intervals (`add_intervals`).
    """
    records = list(records)
    if not records:
        raise ValueError("no records to report on")
    if isinstance(group_keys, str):
        raise ConfigurationError(f"group_keys must be a sequence of keys, not the string {group_keys!r}")
    for index, record in enumerate(records):
        _check_record(index, record)
    report = {"overall": _scores(records)}
    for key in group_keys:
        members: Dict[str, List[dict]] = {}
        for record in records:
            value = (record.get("groups") or {}).get(key)
            if value is not None and str(value) != "":
                members.setdefault(str(value), []).append(record)
        report[f"by_{key}"] = {name: _scores(members[name]) for name in sorted(members)}
    report["f1_range"] = f1_range(report["by_country"]) if "country" in group_keys else None
    if bootstrap:
        add_intervals(report, records, bootstrap, seed)
    return report


def _f1_cell(scores: dict) -> str:
    if "f1_low" in scores:
        return f"{scores['f1']:.1f} [{scores['f1_low']:.1f}, {scores['f1_high']:.1f}]"
    return f"{scores['f1']:.1f}"


def _cells(name: str, scores: dict, with_wer: bool) -> str:
    row = f"| {name} | {scores['em']:.1f} | {_f1_cell(scores)} | {scores['count']} |"
    if with_wer:
        row += f" {scores['wer']:.1f} |" if "wer" in scores else " - |"
    return row


def _table(first: str, rows: Dict[str, dict], with_wer: bool) -> List[str]:
    header = f"| {first} | EM | F1 | count |" + (" WER |" if with_wer else "")
    rule = "|---|---:|---:|---:|" + ("---:|" if with_wer else "")
    return [header, rule] + [_cells(name, scores, with_wer) for name, scores in rows.items()]


def markdown_report(report: dict, title: Optional[str] = None) -> str:
    """The report as Markdown: overall, one table per group key, and the F1-range line."""
    with_wer = "wer" in report["overall"]
    lines = [f"# {title or 'Accent report'}", "", "## Overall", ""]
    lines += _table("set", {"all": report["overall"]}, with_wer)
    for key, rows in report.items():
        if not key.startswith("by_"):
            continue
        name = key[len("by_"):]
        lines += ["", f"## By {name}", ""]
        lines += _table(name, rows, with_wer) if rows else [f"No record has a {name}."]
    spread = report.get("f1_range")
    lines.append("")
    if spread:
        best, worst = report["by_country"][spread["best"]], report["by_country"][spread["worst"]]
        interval = f" (p {spread['p']:.3f}, no difference between countries)" if "p" in spread else ""
        lines.append(
            f"F1 range over countries: {spread['value']:.1f}{interval} "
            f"(best {spread['best']} {best['f1']:.1f}, worst {spread['worst']} {worst['f1']:.1f})"
        )
    else:
        lines.append("F1 range over countries: n/a (fewer than 2 countries)")
    settings = report.get("intervals")
    if settings:
        lines += ["", f"[low, high]: {round(100 * settings['confidence'])}% percentile bootstrap interval "
                      f"({settings['bootstrap']} resamples with replacement, seed {settings['seed']}; each country "
                      "resampled within itself). The F1 range's p: a permutation test of no difference between the "
                      f"countries ({settings['bootstrap']} rounds, the country labels shuffled over the records); a "
                      "bootstrap interval of a best-minus-worst range runs high, so the range gets a test instead."]
    return "\n".join(lines) + "\n"


def plot_f1_by_country(report: dict, path, title: Optional[str] = None) -> Path:
    """Bar chart of F1 per country (best first) with the overall F1 as a horizontal line and each
    bar's question count above it, written as PNG with matplotlib's Agg backend."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    countries = report.get("by_country") or {}
    names = sorted(countries, key=lambda name: (-countries[name]["f1"], name))
    figure = Figure(figsize=(max(4.0, 0.8 * len(names) + 2.0), 4.0), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    errors = None
    if names and all("f1_low" in countries[n] for n in names):
        errors = [[countries[n]["f1"] - countries[n]["f1_low"] for n in names],
                  [countries[n]["f1_high"] - countries[n]["f1"] for n in names]]
    bars = axes.bar(names, [countries[n]["f1"] for n in names], color="tab:blue", yerr=errors, capsize=3)
    axes.bar_label(bars, labels=[f"n={countries[n]['count']}" for n in names], padding=2, fontsize=8)
    overall = report["overall"]["f1"]
    axes.axhline(overall, color="tab:red", linestyle="--", label=f"overall F1 {overall:.1f}")
    if not names:
        axes.text(0.5, 0.5, "no country groups", ha="center", va="center", transform=axes.transAxes)
    axes.set_ylim(0, 110)
    axes.set_xlabel("country")
    axes.set_ylabel("F1 (%)")
    axes.set_title(title or "SQuAD F1 by country")
    axes.legend(loc="upper right", fontsize=8)
    figure.tight_layout()
    path = Path(path)
    with atomic_output(str(path), "wb") as handle:
        figure.savefig(handle, format="png")
    return path


def write_accent_report(report: dict, out_dir, title: Optional[str] = None) -> List[Path]:
    """Write `report.json`, `report.md` and `f1_by_country.png` into `out_dir` (created if
    needed), each atomically, and return their paths in that order."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out_dir / "report.json", out_dir / "report.md"
    write_text_atomic(str(json_path), json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    write_text_atomic(str(md_path), markdown_report(report, title))
    png_path = plot_f1_by_country(report, out_dir / "f1_by_country.png", title)
    return [json_path, md_path, png_path]
