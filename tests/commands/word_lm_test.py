import argparse
import json

import pytest
from allennlp.common.checks import ConfigurationError

from srcframework.commands.word_lm import WordLm, run
from srcframework.speech.word_lm import arpa_counts
from tests.conftest import FIXTURES


def parse(*arguments):
    parser = argparse.ArgumentParser()
    WordLm().add_subparser(parser.add_subparsers())
    return parser.parse_args(["word-lm", *arguments])


def test_writes_the_questions_lm_and_prints_its_counts(tmp_path, capsys):
    out = tmp_path / "questions.arpa"
    counts = run(parse(str(FIXTURES / "squad_tiny.json"), str(out), "--order", "2", "--smoothing", "wb"))
    assert json.loads(capsys.readouterr().out) == counts
    assert counts["sentences"] > 0 and counts == {**counts, **arpa_counts(str(out))}
    assert set(arpa_counts(str(out))) == {"1-grams", "2-grams"}


def test_bad_paths_are_one_line_errors(tmp_path):
    with pytest.raises(ConfigurationError, match="folder .* does not exist"):
        run(parse(str(FIXTURES / "squad_tiny.json"), str(tmp_path / "no" / "lm.arpa")))
    with pytest.raises(Exception, match="missing.json"):
        run(parse(str(tmp_path / "missing.json"), str(tmp_path / "lm.arpa")))
    with pytest.raises(SystemExit):
        parse("a.json", "b.arpa", "--smoothing", "kn")
