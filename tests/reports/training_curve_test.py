import json
import shutil

import pytest

from srcframework.common.errors import InputError
from srcframework.reports.training_curve import (
    check_metrics,
    default_metrics,
    markdown_table,
    plot_training_curves,
    read_training_curve,
)


@pytest.fixture
def tiny_run(tiny_archive):
    """The serialization folder of the tiny BiDAF fixture, trained for 2 epochs with '+f1' watched."""
    return tiny_archive.parent


def test_reads_every_epoch_and_what_the_config_watched(tiny_run):
    curve = read_training_curve(str(tiny_run))
    assert [epoch["epoch"] for epoch in curve.epochs] == [0, 1]
    assert curve.validation_metric == "validation_f1"
    assert curve.best_epoch in (0, 1)
    names = curve.metric_names()
    assert {"training_loss", "validation_loss", "validation_f1", "validation_em"} <= set(names)
    assert not [name for name in names if name.startswith("best_") or "memory" in name]
    assert default_metrics([curve]) == ["training_loss", "validation_loss", "validation_f1"]
    saved = json.loads((tiny_run / "metrics_epoch_1.json").read_text())
    assert curve.values("validation_f1")[1] == pytest.approx(saved["validation_f1"])


def test_the_table_marks_the_best_epoch(tiny_run):
    curve = read_training_curve(str(tiny_run))
    table = markdown_table(curve, ["training_loss", "validation_f1"])
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| epoch")]
    assert len(rows) == 2
    assert rows[curve.best_epoch].startswith(f"| {curve.best_epoch} (best) |")
    assert table.splitlines()[0].endswith(f"(best epoch on validation_f1: {curve.best_epoch})")


def test_a_run_is_read_as_it_trains_and_a_half_written_folder_says_what_is_wrong(tiny_run, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    with pytest.raises(InputError, match="no metrics_epoch_N.json yet"):
        read_training_curve(str(run))
    shutil.copy(tiny_run / "metrics_epoch_0.json", run)
    assert len(read_training_curve(str(run)).epochs) == 1  # no config.json: nothing watched
    assert read_training_curve(str(run)).validation_metric is None
    (run / "metrics_epoch_1.json").write_text('{"training_loss": ')
    with pytest.raises(InputError, match=r"metrics_epoch_1.json: not JSON"):
        read_training_curve(str(run))
    with pytest.raises(InputError, match="no such training folder"):
        read_training_curve(str(tmp_path / "nowhere"))


def test_an_unknown_metric_names_the_known_ones(tiny_run):
    curve = read_training_curve(str(tiny_run))
    with pytest.raises(InputError, match=r"'validation_f2'; did you mean validation_f1\?; known: .*training_loss"):
        check_metrics([curve], ["validation_f2"])


def test_the_plot_is_a_png_and_the_same_curves_give_the_same_bytes(tiny_run):
    curves = [read_training_curve(str(tiny_run))] * 2
    png = plot_training_curves(curves, ["training_loss", "validation_f1"], title="tiny")
    assert png.startswith(b"\x89PNG") and png == plot_training_curves(curves, ["training_loss", "validation_f1"], title="tiny")
