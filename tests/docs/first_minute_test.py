"""README.md's "The first minute" runs as written after the install: its Python code answers the
typed question with the released bidaf-clean, and its shell commands synthesize the spoken question
and answer it with the released e2e-speecht5-ctc through `allennlp predict` (a temporary folder in
place of `runs/my_spoken`); both answers are the one the README says they print."""
import contextlib
import io
import json
import re
import shlex

import pytest

from tests.conftest import ROOT, run_allennlp
from tests.docs.markdown_commands import fenced_blocks, section

pytestmark = pytest.mark.slow  # two released models answer

README = ROOT / "README.md"
HEADING = "## The first minute"
FOLDER = "runs/my_spoken"
MODEL_PATH = re.compile(r"\$\(allennlp models path ([\w-]+)\)")
SAID = "Tannine Osklirard"


def model_path(match) -> str:
    done = run_allennlp("models", "path", match.group(1))
    assert done.returncode == 0, done.stderr[-2000:]
    return shlex.quote(done.stdout.strip().splitlines()[-1])


def test_the_first_minute_answers_a_typed_and_a_spoken_question(tmp_path):
    text = section(README.read_text(encoding="utf-8"), HEADING)
    assert f'Both print "{SAID}"' in " ".join(text.split())
    blocks = fenced_blocks(text)
    install, code, spoken = blocks
    assert install.language == "bash" and install.text.startswith("make install")
    assert code.language == "python" and spoken.language == "bash"

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code.text, str(README), "exec"), {})
    assert printed.getvalue().strip() == SAID

    lines = [line for line in spoken.text.splitlines() if line.strip()]
    assert [shlex.split(line)[1] for line in lines] == ["synthesize-speech", "predict"]
    for line in lines:
        words = shlex.split(MODEL_PATH.sub(model_path, line.replace(FOLDER, str(tmp_path / "my_spoken"))))
        done = run_allennlp(*words[1:])
        assert done.returncode == 0, f"{line}\n{done.stderr[-3000:]}"
    predictions = [json.loads(line[len("prediction: "):]) for line in done.stdout.splitlines()
                   if line.startswith("prediction: ")]
    assert [p["best_span_str"] for p in predictions][:1] == [SAID] and len(predictions) == 2
