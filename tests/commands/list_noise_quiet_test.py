"""`allennlp list-noise` prints its listing without AllenNLP logging every parameter of the noise
sources it builds to describe them (about 48 INFO lines before the listing)."""
import argparse
import logging

from srcframework.commands import list_noise


def test_the_listing_comes_without_parameter_log_lines(caplog, capsys):
    with caplog.at_level(logging.INFO):
        list_noise.run(argparse.Namespace(name=None, json=False))
    assert "keyboard" in capsys.readouterr().out
    logged = [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno <= logging.INFO]
    assert logged == []
