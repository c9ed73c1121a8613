"""The README's quick tour runs as shown, on the shipped data, with small sizes: its commands are
read from README.md and run in order through the `allennlp` entry point, in a folder where
`srcframework/` and `training_configs/` are those of the repository. The only change is the size:
the training gets one epoch on a hundred questions, the study fewer resamples (an archive keeps
its validation reader, so that one is left whole)."""
import contextlib
import json
import logging
import os
import shlex
import sys

import pytest
from allennlp.commands import main as allennlp_main

from tests.conftest import ROOT
from tests.docs.markdown_commands import Command, fenced_blocks, section, section_commands

README = ROOT / "README.md"
TOUR = "## Quick tour"
ASSIGNMENT = "NAME=VALUE"

# extra arguments per subcommand: the small sizes (appended, so they win over nothing the README sets)
SMALL = {
    "train": ["--overrides", json.dumps({
        "trainer.num_epochs": 1,
        "dataset_reader.max_instances": 100,
    })],
    "compare": ["--bootstrap", "200", "--permutations", "500"],
}


def expand(command: str, variables: dict) -> list:
    """The command's words, with `$NAME` and `"$NAME"` replaced by the variables' values."""
    for name, value in sorted(variables.items(), key=lambda item: -len(item[0])):
        command = command.replace(f'"${name}"', shlex.quote(value)).replace(f"${name}", shlex.quote(value))
    return shlex.split(command, comments=True)


@contextlib.contextmanager
def kept_logging():
    """The logging state as it was before: AllenNLP's commands change it for the rest of the
    process (`evaluate` and `predict` disable the `allennlp.common.params` logger, `train` gives the
    root logger handlers that write into its serialization folder), which later tests would see."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    disabled = {name: logger.disabled for name, logger in logging.root.manager.loggerDict.items()
                if isinstance(logger, logging.Logger)}
    try:
        yield
    finally:
        for handler in [h for h in root.handlers if h not in handlers]:
            root.removeHandler(handler)
            handler.close()
        root.handlers[:0] = [h for h in handlers if h not in root.handlers]
        root.setLevel(level)
        for name, logger in logging.root.manager.loggerDict.items():
            if isinstance(logger, logging.Logger):
                logger.disabled = disabled.get(name, False)


def run(words: list, capsys) -> str:
    """`allennlp WORDS...` in this process; its standard output."""
    assert words[0] == "allennlp", words
    subcommand = words[1]
    argv = words + SMALL.get(subcommand, [])
    old = sys.argv
    sys.argv = argv
    try:
        capsys.readouterr()
        with kept_logging():
            allennlp_main(prog="allennlp")
    finally:
        sys.argv = old
    return capsys.readouterr().out


def test_the_tour_is_the_same_in_the_readme_and_the_docs():
    readme = [command.text for command in section_commands(README, TOUR)]
    docs = [command.text for command in section_commands(ROOT / "docs" / "tour.md", "# Quick tour")]
    assert readme == docs
    heredocs = [command.heredoc for command in section_commands(README, TOUR) if command.heredoc]
    assert heredocs == [command.heredoc for command in section_commands(ROOT / "docs" / "tour.md", "# Quick tour")
                        if command.heredoc]


def test_the_readme_shows_the_real_noise_stats_header():
    text = section(README.read_text(encoding="utf-8"), TOUR)
    shown = [block.text for block in fenced_blocks(text) if block.language == "text"]
    assert any(block.startswith("| set | questions | changed | CER | WER | BLEU |") for block in shown)


@pytest.mark.slow
def test_the_tour_runs(tmp_path, monkeypatch, capsys):
    for name in ("srcframework", "training_configs"):
        (tmp_path / name).symlink_to(ROOT / name)
    (tmp_path / ".allennlp_plugins").write_text("srcframework.allennlp_plugin\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")

    commands = section_commands(README, TOUR)
    assert len(commands) >= 8
    variables, outputs = {}, {}
    for command in commands:
        words = shlex.split(command.text, comments=True)
        if len(words) == 1 and "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
            name, value = words[0].split("=", 1)
            variables[name] = value
            continue
        if words[:2] == ["mkdir", "-p"]:
            for folder in words[2:]:
                (tmp_path / folder).mkdir(parents=True, exist_ok=True)
            continue
        if command.heredoc is not None:
            assert words[:2] == ["cat", ">"] and words[3].startswith("<<"), command.text
            target = tmp_path / expand(words[2], variables)[0]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(command.heredoc)
            continue
        words = expand(command.text, variables)
        key = (words[1], words[-1])
        outputs[key] = run(words, capsys)

    tour = tmp_path / "runs" / "tour"
    noisy = json.loads((tour / "dev-keyboard.json").read_text())
    questions = [qa for article in noisy["data"] for paragraph in article["paragraphs"] for qa in paragraph["qas"]]
    assert len(questions) == 205 and all("original_question" in qa for qa in questions)
    stats = next(out for (name, _), out in outputs.items() if name == "noise-stats")
    assert "| dev-keyboard.json | 205 |" in stats
    assert (tour / "quickstart" / "model.tar.gz").exists()
    for name in ("clean.json", "keyboard.json"):
        metrics = json.loads((tour / name).read_text())
        assert 0.0 <= metrics["f1"] <= 1.0
    printed = next(out for (name, _), out in outputs.items() if name == "squad-eval")
    scored = json.loads(next(line for line in printed.splitlines() if line.startswith('{"exact_match"')))
    assert scored["questions"] == 205 and scored["unanswered"] == 0  # every dev question was answered
    assert abs(scored["f1"] - 100 * json.loads((tour / "clean.json").read_text())["f1"]) < 1e-6
    results = (tour / "study" / "results.md").read_text()
    assert "| clean | clean | natural |" in results and "| keyboard | keyboard | synthetic |" in results
    assert "| blank | none | synthetic |" in results
    assert os.path.exists(tour / "study" / "report.html")
