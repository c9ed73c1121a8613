"""AllenNLP's own `evaluate` and `predict` check their output paths before any work, and `predict`
writes the official predictions file only at the end of a run that returns (also when the process
that ran it goes on after a failure, and when it exits: a process of its own)."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import FIXTURES, ROOT, run_allennlp

TINY = str(FIXTURES / "squad_tiny.json")
CONTEXT = "The harbour of Velmont was dredged in 1882 by the engineer Ossia Brandt."


def run(*command):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("SRCFRAMEWORK_DEBUG", None)
    return subprocess.run([sys.executable, *command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_evaluate_into_a_missing_folder_is_one_line_before_the_archive_is_loaded(tiny_archive, tmp_path):
    metrics = tmp_path / "missing" / "metrics.json"
    done = run_allennlp("evaluate", str(tiny_archive), TINY, "--output-file", str(metrics))
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last == f"error: evaluate --output-file {metrics}: the folder {metrics.parent} does not exist"
    assert "Traceback" not in done.stderr
    assert "loading archive file" not in done.stderr  # no work was done


def test_evaluate_predictions_output_into_a_folder_given_as_file(tiny_archive, tmp_path):
    done = run_allennlp("evaluate", str(tiny_archive), TINY, "--predictions-output-file", str(tmp_path))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"error: evaluate --predictions-output-file {tmp_path} is a folder, not a file"
    )


def test_predict_output_into_a_missing_folder_is_one_line_before_the_archive_is_loaded(tiny_archive, tmp_path):
    inputs = tmp_path / "in.jsonl"
    inputs.write_text(json.dumps({"id": "q", "context": CONTEXT, "question": "When?"}) + "\n")
    official = tmp_path / "nowhere" / "official.json"
    done = run_allennlp("predict", str(tiny_archive), str(inputs), "--predictor", "span_qa", "--silent",
                        "--output-file", str(tmp_path / "p.jsonl"),
                        "--predictor-args", json.dumps({"official_predictions_file": str(official)}))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"error: official predictions file {official}: the folder {official.parent} does not exist"
    )
    assert "loading archive file" not in done.stderr


def test_predict_on_a_missing_input_file_is_one_line_before_the_archive_is_loaded(tiny_archive, tmp_path):
    done = run_allennlp("predict", str(tiny_archive), str(tmp_path / "absent.jsonl"), "--predictor", "span_qa")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [f"error: predict: the input file {tmp_path / 'absent.jsonl'} is not there"]


@pytest.mark.slow
def test_a_failed_predict_called_as_a_library_writes_no_official_file_then_or_at_exit(tiny_archive, tmp_path):
    """`allennlp predict` run inside a Python process that catches its error and goes on: the
    official predictions file is written neither then nor when that process exits; a run that
    returns writes it before returning."""
    lines = [{"id": "q0", "context": CONTEXT, "question": "When was it dredged?"}, {"id": "q1", "context": CONTEXT}]
    bad, good = tmp_path / "bad.jsonl", tmp_path / "good.jsonl"
    bad.write_text("".join(json.dumps(line) + "\n" for line in lines))
    good.write_text(json.dumps(lines[0]) + "\n")
    official = tmp_path / "official.json"
    script = textwrap.dedent(f"""
        import json, os, sys
        import srcframework
        from allennlp.commands import main

        def predict(inputs):
            sys.argv = ["allennlp", "predict", {str(tiny_archive)!r}, inputs, "--predictor", "span_qa",
                        "--batch-size", "1", "--silent", "--output-file", {str(tmp_path / "p.jsonl")!r},
                        "--predictor-args", json.dumps({{"official_predictions_file": {str(official)!r}}})]
            main()

        try:
            predict({str(bad)!r})
        except ValueError as error:
            print("caught:", error)
        print("after the failure:", os.path.exists({str(official)!r}))
        predict({str(good)!r})
        print("after the good run:", json.load(open({str(official)!r})))
        os.remove({str(official)!r})
        try:
            predict({str(bad)!r})
        except ValueError:
            pass
    """)
    done = run("-c", script)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "caught: input line 2: needs a non-empty string 'question'" in done.stdout
    assert "after the failure: False" in done.stdout
    assert "after the good run: {'q0': " in done.stdout
    assert not official.exists()  # the last, failed run wrote nothing, not even at exit
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".tmp")]
