"""Bad command-line arguments end in one line that says the form, before any work: `--shard -1/2`
(which argparse takes for an option) and `allennlp compare -o` into a folder it cannot write."""
import argparse

import pytest
from allennlp.common.checks import ConfigurationError

from srcframework.commands import compare
from srcframework.commands.compare import Compare
from srcframework.commands.noise import Noise


def parser_of(command) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="allennlp")
    command().add_subparser(parser.add_subparsers())
    return parser


@pytest.mark.parametrize("command, argv", [
    (Noise, ["noise", "in.json", "out.json", "--shard", "-1/2"]),
    (Compare, ["compare", "s.jsonnet", "-o", "out", "--shard", "-1/2"]),
])
def test_a_negative_shard_is_told_the_form(command, argv, capsys):
    with pytest.raises(SystemExit) as stopped:
        parser_of(command).parse_args(argv)
    assert stopped.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.endswith("argument --shard: expected i/n with 0 <= i < n (e.g. --shard 0/4); "
                         "a value starting with '-' is not one")


@pytest.mark.parametrize("value", ["2/2", "x", "1-2"])
def test_a_shard_out_of_range_or_malformed_is_told_the_same_form(value, capsys):
    with pytest.raises(SystemExit):
        parser_of(Noise).parse_args(["noise", "in.json", "out.json", "--shard", value])
    assert f"--shard takes i/n with 0 <= i < n (e.g. --shard 0/4), got '{value}'" in capsys.readouterr().err


def test_compare_into_an_unwritable_folder_is_one_line_before_any_work(monkeypatch):
    def no_work(*args, **kwargs):
        raise AssertionError("the study was read before the output folder was checked")

    monkeypatch.setattr(compare, "load_study", no_work)
    args = parser_of(Compare).parse_args(["compare", "missing_study.jsonnet", "-o", "/proc/study"])
    with pytest.raises(ConfigurationError, match=r"^compare --output-dir /proc/study: cannot write in the folder /proc"):
        compare.run(args)
