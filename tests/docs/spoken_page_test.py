"""docs/spoken.md's "A spoken question answered" runs as written: its shell commands (synthesis,
the released end-to-end model through `allennlp predict` with no override, the cascade with the
released text model) in order through the `allennlp` entry point, then its Python code, with a
temporary folder in place of `runs/my_spoken`; and the answers the page quotes are the ones given."""
import contextlib
import io
import json
import re
import shlex

import pytest

from tests.conftest import ROOT, run_allennlp
from tests.docs.markdown_commands import fenced_blocks, section, section_commands

pytestmark = pytest.mark.slow  # two released models answer, pocketsphinx transcribes

PAGE = ROOT / "docs" / "spoken.md"
HEADING = "## A spoken question answered, from synthesis to answer"
FOLDER = "runs/my_spoken"
MODEL_PATH = re.compile(r"\$\(allennlp models path ([\w-]+)\)")


def model_path(match) -> str:
    done = run_allennlp("models", "path", match.group(1))
    assert done.returncode == 0, done.stderr[-2000:]
    return shlex.quote(done.stdout.strip().splitlines()[-1])


def test_the_spoken_page_runs_as_written(tmp_path):
    folder = tmp_path / "my_spoken"
    commands = [command.text for command in section_commands(PAGE, HEADING)]
    assert [shlex.split(text)[1] for text in commands] == ["synthesize-speech", "predict", "cascade"]
    for text in commands:
        text = MODEL_PATH.sub(model_path, text.replace(FOLDER, str(folder)))
        words = shlex.split(text)
        assert words[0] == "allennlp" and "--overrides" not in words
        done = run_allennlp(*words[1:])
        assert done.returncode == 0, f"{text}\n{done.stderr[-3000:]}"

    e2e = [json.loads(line) for line in (folder / "e2e.jsonl").read_text().splitlines()]
    cascade = [json.loads(line) for line in (folder / "cascade" / "predictions.jsonl").read_text().splitlines()]
    assert [line["id"] for line in e2e] == [line["id"] for line in cascade] == ["default-dev-000001", "default-dev-000002"]
    # what the page says of the first question
    assert e2e[0]["best_span_str"] == cascade[0]["prediction"] == "Tannine Osklirard"
    assert cascade[0]["question"] == "who founded just tomorrow"
    assert json.loads((folder / "cascade" / "metrics.json").read_text())["questions"] == 2

    code = [block.text for block in fenced_blocks(section(PAGE.read_text(encoding="utf-8"), HEADING))
            if block.language == "python"]
    assert len(code) == 1
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code[0].replace(FOLDER, str(folder)), str(PAGE), "exec"), {})
    assert printed.getvalue().strip() == "Tannine Osklirard"
