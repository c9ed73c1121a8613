import argparse
import json
import logging
import os
import signal
import subprocess
import sys
import time

import pytest
from allennlp.common.checks import ConfigurationError

import srcframework.noise.keyboard  # noqa: F401
from srcframework.commands.noise import parse_noise, parse_shard, run
from srcframework.data.errors import DatasetError
from srcframework.jobs.challenge_set import make_challenge_set
from tests.conftest import FIXTURES, ROOT

DEFAULT_TRAIN = ROOT / "srcframework" / "data" / "default" / "train.json"


def noise_args(input_file, output_file, **overrides):
    values = dict(input_file=str(input_file), output_file=str(output_file), noise={"type": "keyboard"},
                  seed=0, workers=1, batch_size=4, shard=(0, 1), no_progress=True, force=False)
    values.update(overrides)
    return argparse.Namespace(**values)


def questions(path):
    data = json.load(open(path, encoding="utf-8"))
    return {qa["id"]: qa for a in data["data"] for p in a["paragraphs"] for qa in p["qas"]}


def test_writes_noised_set_with_originals_and_config(tmp_path, capsys):
    out = tmp_path / "keyboard.json"
    run(noise_args(FIXTURES / "squad_tiny.json", out))
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["complete"]
    noised, clean = questions(out), questions(FIXTURES / "squad_tiny.json")
    assert set(noised) == set(clean)
    for qid, qa in noised.items():
        assert qa["original_question"] == clean[qid]["question"]
        assert qa["answers"] == clean[qid]["answers"]
    assert any(qa["question"] != qa["original_question"] for qa in noised.values())
    assert json.load(open(out))["noise"]["config"] == {"type": "keyboard"}
    assert not list(tmp_path.glob("*.journal-*"))


def test_logs_the_parameters_once_and_says_where_the_output_went(tmp_path, capsys, caplog):
    out = tmp_path / "keyboard.json"
    with caplog.at_level(logging.INFO, logger="allennlp.common.params"):
        run(noise_args(FIXTURES / "squad_tiny.json", out))
    assert [r.getMessage() for r in caplog.records if r.name == "allennlp.common.params"] == ["type = keyboard",
                                                                                             "word_probability = 0.25"]
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"wrote {out}: 9 questions (9 noised now, 0 already done)"
    assert json.loads(lines[1]) == {"questions": 9, "noised_now": 9, "complete": True, "output": str(out)}
    run(noise_args(FIXTURES / "squad_tiny.json", tmp_path / "half.json", shard=(0, 2)))
    assert capsys.readouterr().out.splitlines()[0] == (
        f"wrote {tmp_path}/half.json.shard-0-of-2.json: this shard's 5 questions (5 noised now, 0 already done); "
        f"{tmp_path}/half.json is written by the run that finds every shard done (or by a run without --shard)"
    )


@pytest.mark.slow
def test_killed_run_resumes_to_identical_output(tmp_path):
    """SIGKILL a real `allennlp noise` run midway; rerunning gives the uninterrupted output."""
    reference = tmp_path / "reference.json"
    make_challenge_set(str(DEFAULT_TRAIN), str(reference), {"type": "keyboard"}, seed=5, progress=False)
    out = tmp_path / "killed.json"
    command = [sys.executable, "-m", "allennlp", "noise", str(DEFAULT_TRAIN), str(out), "--noise", "keyboard",
               "--seed", "5", "--batch-size", "1", "--no-progress"]
    process = subprocess.Popen(command, cwd=ROOT, env=dict(os.environ, OMP_NUM_THREADS="1"))
    journal = tmp_path / "killed.json.journal-0-of-1.jsonl"
    deadline = time.time() + 300
    while time.time() < deadline and process.poll() is None:
        if journal.exists() and journal.read_text().count("\n") > 50:
            break
        time.sleep(0.01)
    assert process.poll() is None, "the run finished before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait()
    done_before = journal.read_text().count("\n") - 1
    assert 50 <= done_before < len(questions(reference)) and not out.exists()
    result = make_challenge_set(str(DEFAULT_TRAIN), str(out), {"type": "keyboard"}, seed=5, progress=False)
    assert result["noised_now"] <= len(questions(reference)) - done_before + 1  # nothing redone
    assert out.read_bytes() == reference.read_bytes()


def test_argument_errors():
    assert parse_shard("1/4") == (1, 4)
    assert parse_noise("keyboard") == {"type": "keyboard"}
    assert parse_noise('{"type": "keyboard", "word_probability": 0.5}')["word_probability"] == 0.5
    for bad in ("4/4", "x", "1/0"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_shard(bad)
    with pytest.raises(argparse.ArgumentTypeError, match="not valid JSON: expecting property name .* column 2$"):
        parse_noise("{oops")
    with pytest.raises(argparse.ArgumentTypeError, match="unterminated string starting at line 1, column 10$"):
        parse_noise('{"type": "keyboard')
    with pytest.raises(ConfigurationError, match="which noise source"):
        run(noise_args(FIXTURES / "squad_tiny.json", "/tmp/never.json", noise=None))


def test_duplicate_question_ids_name_the_id_and_file(tmp_path):
    data = json.loads((FIXTURES / "squad_tiny.json").read_text())
    data["data"][2]["paragraphs"][0]["qas"][0]["id"] = "q4"
    source = tmp_path / "dup.json"
    source.write_text(json.dumps(data))
    with pytest.raises(DatasetError) as error:
        run(noise_args(source, tmp_path / "out.json"))
    assert str(error.value).startswith(f"{source} (question id 'q4'): duplicate question id")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dup.json"]


@pytest.mark.parametrize("output, message", [
    ("missing/out.json", "the folder .*missing does not exist"),
    ("a_folder", "a_folder is a folder, not a file"),
    ("a_file/out.json", "a_file is a file, not a folder"),
])
def test_unwritable_output_is_one_error_before_any_work(tmp_path, output, message):
    (tmp_path / "a_folder").mkdir()
    (tmp_path / "a_file").write_text("")
    # the input does not exist either: the output is checked first, before anything is read
    with pytest.raises(ConfigurationError, match=f"noise output file .*{message}"):
        run(noise_args(tmp_path / "no_input.json", tmp_path / output))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file", "a_folder"]
    assert list((tmp_path / "a_folder").iterdir()) == []


def test_noise_preset_by_name_through_the_command_line(tmp_path, monkeypatch, capsys):
    from allennlp.commands import main

    from srcframework.noise.preset import preset_config

    assert parse_noise("asr-fast-3voices") == preset_config("asr-fast-3voices")
    assert parse_noise("back-translation")["forward"] == {"type": "apertium", "pair": "eng-spa"}
    out = tmp_path / "keyboard.json"
    monkeypatch.setattr(sys, "argv", ["allennlp", "noise", str(FIXTURES / "squad_tiny.json"), str(out),
                                      "--noise", "keyboard", "--no-progress"])
    main(prog="allennlp")
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["complete"]
    assert json.load(open(out))["noise"]["config"] == {"type": "keyboard"}
    assert json.load(open(out))["noise"]["resolved"] == {"type": "keyboard", "word_probability": 0.25}
    monkeypatch.setattr(sys, "argv", ["allennlp", "noise", "in.json", "out.json", "--noise", "keybord"])
    with pytest.raises(SystemExit):
        main(prog="allennlp")
    assert "no noise preset or noise source type 'keybord'; did you mean keyboard? presets: asr-fast-3voices" in (
        capsys.readouterr().err)


def test_a_finished_set_of_another_configuration_is_replaced_only_with_force(tmp_path, capsys):
    out = tmp_path / "set.json"
    run(noise_args(FIXTURES / "squad_tiny.json", out))
    first = out.read_bytes()
    run(noise_args(FIXTURES / "squad_tiny.json", out))  # the same configuration: written again, the same
    assert out.read_bytes() == first
    with pytest.raises(ConfigurationError) as refused:
        run(noise_args(FIXTURES / "squad_tiny.json", out, seed=7))
    key = json.loads(first)["noise"]["key"]
    assert str(refused.value).startswith(
        f"{out} is a finished challenge set made with another configuration (noise {{\"type\": \"keyboard\"}} with seed "
        f"0, not {{\"type\": \"keyboard\"}} with seed 7; key {key}, not ")
    assert str(refused.value).endswith("give another output file, or --force to replace it")
    assert out.read_bytes() == first and not list(tmp_path.glob("*.journal-*"))
    run(noise_args(FIXTURES / "squad_tiny.json", out, seed=7, force=True))
    assert json.loads(out.read_bytes())["noise"]["seed"] == 7


def test_the_command_line_refuses_in_one_line_and_takes_force(tmp_path):
    from tests.conftest import run_allennlp

    out = tmp_path / "set.json"
    arguments = ("noise", FIXTURES / "squad_tiny.json", out, "--noise", "keyboard", "--no-progress")
    assert run_allennlp(*arguments).returncode == 0
    refused = run_allennlp(*arguments, "--seed", "3")
    assert refused.returncode == 1 and refused.stderr.strip().splitlines()[-1].startswith(
        f"error: {out} is a finished challenge set made with another configuration"), refused.stderr[-2000:]
    assert run_allennlp(*arguments, "--seed", "3", "--force").returncode == 0


def test_a_full_disk_keeps_the_journal_and_a_rerun_finishes(tmp_path, monkeypatch):
    from tests.common.disk_full_test import NoSpace
    from tests.conftest import run_allennlp

    out = tmp_path / "set.json"
    arguments = ("noise", FIXTURES / "squad_tiny.json", out, "--noise", "keyboard", "--no-progress")
    real = os.fdopen
    with monkeypatch.context() as patch:  # the journal fits; the output file (written whole or not at all) does not
        patch.setattr(os, "fdopen", lambda *a, **k: NoSpace(real(*a, **k)))
        full = run_allennlp(*arguments)
    assert full.returncode == 1 and "Traceback" not in full.stderr, full.stderr[-2000:]
    last = full.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: no space left on the device of {tmp_path}: set.json was not written (") and \
        "bytes needed" in last
    assert not out.exists() and list(tmp_path.glob("set.json.journal-*"))
    again = run_allennlp(*arguments)
    assert again.returncode == 0 and "(0 noised now, 9 already done)" in again.stdout, again.stdout + again.stderr[-2000:]
