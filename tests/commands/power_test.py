import json
import subprocess
import sys

import pytest
from allennlp.commands import main

from srcframework.commands import power  # noqa: F401  (registers the subcommand)
from srcframework.common.errors import InputError
from tests.conftest import ROOT

PILOT = str(ROOT / "recipes" / "robust_training" / "results.json")


def allennlp(monkeypatch, capsys, *arguments) -> str:
    monkeypatch.setattr(sys, "argv", ["allennlp", *arguments])
    main(prog="allennlp")
    return capsys.readouterr().out


def test_the_robust_training_pilot_needs_about_twenty_seeds_per_arm(monkeypatch, capsys):
    out = allennlp(monkeypatch, capsys, "power", PILOT, "--margin", "1.5")
    assert "bidaf_augmented against bidaf_clean (3 and 3 seeds), clean F1 change" in out
    assert "between-seed SD: 1.52 (bidaf_augmented), 1.51 (bidaf_clean)" in out
    assert "independent arms (SD 1.52): 19 seeds per arm needed; with 3: power 0.03" in out
    assert "seed-paired arms (SD 1.91): 16 seed pairs needed" in out


def test_an_effect_a_group_and_a_planned_design(monkeypatch, capsys):
    found = json.loads(allennlp(monkeypatch, capsys, "power", PILOT, "--effect", "1.2", "--outcome", "drop_difference",
                                "--group", "unseen_generator", "--seeds", "10", "--power", "0.9", "--json"))
    assert found["test"] == "difference" and found["group"] == "unseen_generator" and found["planned_seeds"] == 10
    assert found["power"] == 0.9 and found["designs"]["independent"]["seeds_needed"] >= 2
    assert found["designs"]["independent"]["planned_power"] > found["designs"]["paired"]["planned_power"]


@pytest.mark.parametrize("arguments, message", [
    (["--margin", "0"], "margin must be a positive"),
    (["--margin", "1.5", "--model", "minilm_augmented"], "need at least 2 seeds each"),
    (["--margin", "1.5", "--power", "1.5"], "power must lie between 0 and 1"),
])
def test_bad_input_is_an_input_error(monkeypatch, capsys, arguments, message):
    with pytest.raises(InputError, match=message):
        allennlp(monkeypatch, capsys, "power", PILOT, *arguments)


@pytest.mark.slow
def test_a_missing_pilot_is_one_line_on_the_command_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "allennlp", "power", str(tmp_path / "none.json"), "--margin", "1.5"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode != 0 and "results file not found" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_docs_example_is_what_the_command_prints(monkeypatch, capsys):
    page = (ROOT / "docs" / "power.md").read_text()
    command = "allennlp power recipes/robust_training/results.json --margin 1.5"
    after = page[page.index(command):]
    printed = after[after.index("```text\n") + len("```text\n"):]
    printed = printed[:printed.index("```")]
    monkeypatch.chdir(ROOT)
    assert allennlp(monkeypatch, capsys, *command.split()[1:]) == printed


def test_the_seeds_needed_come_with_the_interval_from_the_sds(monkeypatch, capsys):
    out = allennlp(monkeypatch, capsys, "power", PILOT, "--margin", "1.5")
    assert "the SD's 95% interval [0.91, 4.36] (chi-square, 4 degrees of freedom) gives [8, 146] seeds per arm" in out
    assert "(chi-square, 2 degrees of freedom) gives [6, 553] seed pairs needed" in out
