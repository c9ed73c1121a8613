import sys

import pytest
from allennlp.commands import main

from srcframework.commands import training_curve  # noqa: F401  (registers the subcommand)


def allennlp(monkeypatch, capsys, *arguments) -> str:
    monkeypatch.setattr(sys, "argv", ["allennlp", *arguments])
    main(prog="allennlp")
    return capsys.readouterr().out


def test_prints_a_table_a_run_and_writes_the_plot(tiny_archive, tmp_path, monkeypatch, capsys):
    run = str(tiny_archive.parent)
    plot = tmp_path / "curve.png"
    out = allennlp(monkeypatch, capsys, "training-curve", run, run, "--metrics", "validation_f1", "-o", str(plot))
    assert out.count("| epoch | validation_f1 | training time |") == 2
    assert out.rstrip().endswith(f"plot: {plot}")
    assert plot.read_bytes().startswith(b"\x89PNG")


def test_an_unknown_metric_is_a_one_line_error(tiny_archive, monkeypatch, capsys):
    with pytest.raises(Exception, match="no run has the metric 'cer'"):
        allennlp(monkeypatch, capsys, "training-curve", str(tiny_archive.parent), "--metrics", "cer")
