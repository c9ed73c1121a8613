import argparse
import json

import pytest

from srcframework.commands.compare import Compare, run
from tests.conftest import FIXTURES, run_allennlp

STUDY = str(FIXTURES / "study_tiny.jsonnet")


def parse(*argv):
    parser = argparse.ArgumentParser()
    Compare().add_subparser(parser.add_subparsers())
    return parser.parse_args(["compare", *argv])


def test_arguments_and_defaults():
    args = parse("s.jsonnet", "-o", "out")
    assert (args.study, args.output_dir, args.workers, args.shard) == ("s.jsonnet", "out", 1, (0, 1))
    assert not args.merge and not args.force and args.cuda_device is None and not args.no_progress
    assert args.reanalyse is None
    args = parse("s.jsonnet", "--output-dir", "out", "--workers", "3", "--shard", "2/4", "--cuda-device", "0", "--force")
    assert (args.workers, args.shard, args.cuda_device, args.force) == (3, (2, 4), 0, True)
    assert (args.bootstrap, args.seed, args.examples) == (1000, 0, 5)
    assert (args.permutations, args.bootstrap_unit) == (10000, None)  # None: the study's unit
    args = parse("s.jsonnet", "-o", "out", "--bootstrap", "200", "--seed", "3", "--examples", "2", "--permutations",
                 "20000", "--bootstrap-unit", "question")
    assert (args.bootstrap, args.seed, args.examples, args.permutations, args.bootstrap_unit) == (200, 3, 2, 20000, "question")
    for bad in (["s.jsonnet"], ["s.jsonnet", "-o", "o", "--shard", "4/4"], ["s.jsonnet", "-o", "o", "--shard", "x"],
                ["s.jsonnet", "-o", "o", "--bootstrap-unit", "paragraph"]):
        with pytest.raises(SystemExit):
            parse(*bad)


def test_run_prints_the_summary_and_a_rerun_does_nothing(tiny_archive, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TINY_ARCHIVE", str(tiny_archive))
    args = parse(STUDY, "-o", str(tmp_path), "--no-progress")
    summary = run(args)
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == summary
    assert summary["pairs_run"] == 2 and summary["assembled"] and (tmp_path / "report.html").is_file()
    assert run(args)["pairs_run"] == 0
    with pytest.raises(ValueError, match="--merge assembles finished pairs"):
        run(parse(STUDY, "-o", str(tmp_path), "--merge", "--shard", "0/2"))
    with pytest.raises(ValueError, match="--workers must be at least 1"):
        run(parse(STUDY, "-o", str(tmp_path), "--workers", "0"))
    assert run(parse(STUDY, "-o", str(tmp_path), "--merge"))["pairs_run"] == 0
    with pytest.raises(ValueError, match="--bootstrap must be at least 1"):
        run(parse(STUDY, "-o", str(tmp_path), "--bootstrap", "0"))
    first = (tmp_path / "results.json").read_bytes()
    run(parse(STUDY, "-o", str(tmp_path), "--merge", "--bootstrap", "300", "--seed", "4"))
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["statistics"]["bootstrap"] == 300 and results["statistics"]["seed"] == 4
    run(parse(STUDY, "-o", str(tmp_path), "--merge", "--bootstrap-unit", "question", "--permutations", "500"))
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["statistics"]["bootstrap_unit"] == "question" and results["statistics"]["contexts"] is None
    assert results["statistics"]["families"]["drop_tests"] == {"tests": 2, "method": "randomisation", "rounds": 500}
    with pytest.raises(ValueError, match="--permutations must be at least 1"):
        run(parse(STUDY, "-o", str(tmp_path), "--merge", "--permutations", "0"))
    run(parse(STUDY, "-o", str(tmp_path), "--merge"))
    assert (tmp_path / "results.json").read_bytes() == first
    # --markdown-into writes the tables between a Markdown file's results markers
    readme = tmp_path / "README.md"
    readme.write_text("# R\n\n<!-- results:study tables=em_f1 -->\nNot yet run.\n<!-- /results:study -->\nEnd.\n")
    summary = run(parse(STUDY, "-o", str(tmp_path / "study"), "--no-progress", "--markdown-into", str(readme)))
    text = readme.read_text()
    assert summary["markdown_into"] == f"{readme} (study)" and "Not yet run." not in text
    assert text.startswith("# R\n\n<!-- results:study tables=em_f1 -->\n") and text.endswith("<!-- /results:study -->\nEnd.\n")
    assert "| " in text


def test_allennlp_compare_command_line(tiny_archive, tmp_path):
    """`allennlp compare` as a shard of an array job."""
    done = run_allennlp("compare", STUDY, "-o", str(tmp_path), "--shard", "1/2", "--no-progress",
                        env={"TINY_ARCHIVE": str(tiny_archive)})
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["pairs_run"] == 1 and not summary["assembled"]
    assert (tmp_path / "pairs" / "tiny__keyboard" / "scores.json").is_file()
    assert not (tmp_path / "pairs" / "tiny__clean").exists() and not (tmp_path / "results.json").exists()
