"""Learning curves of `allennlp train` runs, read from the `metrics_epoch_N.json` files AllenNLP
writes into a serialization folder after each epoch: a Markdown table and a PNG plot (matplotlib's
Agg backend, no display needed). It reads a run while it trains, so a long training can be
watched, and it reads a run that stopped and went on with `--recover` (AllenNLP counts its
`training_duration` from the restart).
"""
import io
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from srcframework.common.errors import InputError, InputFileNotFound, did_you_mean, json_error_text
from srcframework.common.files import write_bytes_atomic

EPOCH_FILE = re.compile(r"^metrics_epoch_(\d+)\.json$")
PALETTE = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:gray"]


@dataclass
class TrainingCurve:
    """The per-epoch metrics of one run, in epoch order, and what its config watched."""

    run: str
    epochs: List[Dict[str, object]]
    validation_metric: Optional[str] = None  # e.g. "validation_cer", from the config's trainer

    @property
    def best_epoch(self) -> Optional[int]:
        """The epoch AllenNLP last recorded as best on the validation metric (None without validation)."""
        best = self.epochs[-1].get("best_epoch")
        return best if isinstance(best, int) else None

    def metric_names(self) -> List[str]:
        """The numeric metrics of every epoch, less AllenNLP's `best_*` copies and memory figures."""
        names = {
            key for epoch in self.epochs for key, value in epoch.items()
            if _number(value) is not None and not key.startswith("best_") and "memory" not in key and key != "epoch"
        }
        return sorted(names)

    def values(self, metric: str) -> List[Optional[float]]:
        return [_number(epoch.get(metric)) for epoch in self.epochs]


def _number(value) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _watched_metric(run: Path) -> Optional[str]:
    """`validation_cer` for a config whose trainer has `validation_metric: '-cer'`."""
    try:
        config = json.loads((run / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    watched = (config.get("trainer") or {}).get("validation_metric", "-loss")
    watched = watched[0] if isinstance(watched, list) and watched else watched
    return "validation_" + watched.lstrip("+-") if isinstance(watched, str) and watched else None


def read_training_curve(run_dir: str) -> TrainingCurve:
    """The curve of the serialization folder `run_dir`; an `InputError` naming what is wrong for a
    folder that does not exist, holds no epoch's metrics yet, or holds a broken metrics file."""
    run = Path(run_dir)
    if not run.is_dir():
        raise InputFileNotFound(f"{run_dir}: no such training folder (the -s of `allennlp train`)")
    files = sorted(
        ((int(match.group(1)), path) for path in run.iterdir() if (match := EPOCH_FILE.match(path.name))),
        key=lambda item: item[0],
    )
    if not files:
        raise InputError(f"{run_dir}: no metrics_epoch_N.json yet (AllenNLP writes one when an epoch ends)")
    epochs = []
    for number, path in files:
        try:
            metrics = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise InputError(f"{path}: not JSON ({json_error_text(error)})") from None
        if not isinstance(metrics, dict):
            raise InputError(f"{path}: expected a JSON object of metrics")
        epochs.append({**metrics, "epoch": number})
    return TrainingCurve(str(run_dir), epochs, _watched_metric(run))


def default_metrics(curves: Sequence[TrainingCurve]) -> List[str]:
    """The training and validation loss and each run's watched validation metric, where present."""
    known = {name for curve in curves for name in curve.metric_names()}
    wanted = ["training_loss", "validation_loss"] + [c.validation_metric for c in curves if c.validation_metric]
    chosen = []
    for name in wanted:
        if name in known and name not in chosen:
            chosen.append(name)
    return chosen or sorted(known)[:3]


def check_metrics(curves: Sequence[TrainingCurve], metrics: Sequence[str]) -> None:
    known = sorted({name for curve in curves for name in curve.metric_names()})
    for metric in metrics:
        if metric not in known:
            hint = did_you_mean(metric, known)
            raise InputError(f"no run has the metric {metric!r}" + (f"; {hint}" if hint else "") + f"; known: {', '.join(known)}")


def _cell(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.4g}"


def markdown_table(curve: TrainingCurve, metrics: Sequence[str]) -> str:
    """One row an epoch: its metrics, AllenNLP's cumulative training time, and the best epoch marked."""
    lines = [
        f"**{curve.run}**" + (f" (best epoch on {curve.validation_metric}: {curve.best_epoch})" if curve.best_epoch is not None else ""),
        "",
        "| epoch | " + " | ".join(metrics) + " | training time |",
        "|---:|" + "---:|" * len(metrics) + "---:|",
    ]
    columns = [curve.values(metric) for metric in metrics]
    for row, epoch in enumerate(curve.epochs):
        mark = " (best)" if epoch["epoch"] == curve.best_epoch else ""
        cells = [_cell(column[row]) for column in columns]
        duration = str(epoch.get("training_duration", "-")).split(".")[0]
        lines.append(f"| {epoch['epoch']}{mark} | " + " | ".join(cells) + f" | {duration} |")
    return "\n".join(lines) + "\n"


def plot_training_curves(curves: Sequence[TrainingCurve], metrics: Sequence[str], title: Optional[str] = None) -> bytes:
    """A PNG: one panel a metric, one line a run, a ring on each run's best epoch."""
    # imported here: every `allennlp` command imports this module, and matplotlib's first import
    # logs (and takes seconds) where it has no font cache yet
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=(4.2 * len(metrics), 3.6), dpi=100)
    FigureCanvasAgg(figure)
    for panel, metric in enumerate(metrics):
        axes = figure.add_subplot(1, len(metrics), panel + 1)
        for number, curve in enumerate(curves):
            points = [(e["epoch"], v) for e, v in zip(curve.epochs, curve.values(metric)) if v is not None]
            if not points:
                continue
            colour = PALETTE[number % len(PALETTE)]
            axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=3, color=colour,
                      label=Path(curve.run).name or curve.run)
            best = [p for p in points if p[0] == curve.best_epoch]
            if best:
                axes.plot([best[0][0]], [best[0][1]], marker="o", markersize=10, fillstyle="none", color=colour)
        axes.set_title(metric, fontsize=10)
        axes.set_xlabel("epoch")
        epochs = sorted({e["epoch"] for curve in curves for e in curve.epochs})
        if len(epochs) <= 12:
            axes.set_xticks(epochs)
        else:
            axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.grid(alpha=0.3)
        if panel == 0 and len(curves) > 1:
            axes.legend(fontsize=8)
    if title:
        figure.suptitle(title, fontsize=11)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def write_training_curves(curves: Sequence[TrainingCurve], metrics: Sequence[str], path: str, title: Optional[str] = None) -> None:
    write_bytes_atomic(path, plot_training_curves(curves, metrics, title))
