import argparse
import json

import pytest

from srcframework.commands.tune_ctc_decoder import TuneCtcDecoder, run
from srcframework.jobs.synthesis import synthesize_questions
from tests.conftest import FIXTURES
from tests.tiny_models import save_tiny_ctc_recognizer


def parse(*arguments):
    parser = argparse.ArgumentParser()
    TuneCtcDecoder().add_subparser(parser.add_subparsers())
    return parser.parse_args(["tune-ctc-decoder", *arguments])


def test_defaults_and_lists():
    args = parse("src", "out.json", "--model", "m", "--language-model", "lm.arpa")
    assert args.lm_weights == [0.5, 1.0, 2.0, 3.0] and args.word_scores == [-1.0, 0.0, 1.0, 2.0]
    assert (args.split, args.beam_size, args.limit, args.seed) == ("dev", 50, None, 0)
    assert parse("s", "o", "--model", "m", "--language-model", "l", "--lm-weights", "0, 1.5").lm_weights == [0.0, 1.5]
    with pytest.raises(SystemExit):
        parse("s", "o", "--model", "m", "--language-model", "l", "--word-scores", "a,b")


def test_writes_the_grid_and_prints_the_choice(tmp_path, squad_dev_lm, capsys):
    src = tmp_path / "src"
    synthesize_questions(str(FIXTURES / "squad_tiny.json"), str(src), "flite:kal16", limit=2, progress=False)
    model = save_tiny_ctc_recognizer(tmp_path / "ctc")
    out = tmp_path / "tuning.json"
    result = run(parse(str(src), str(out), "--model", model, "--language-model", squad_dev_lm,
                       "--lm-weights", "1", "--word-scores", "0,1", "--beam-size", "5", "--no-progress"))
    assert json.loads(out.read_text()) == result
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3 and lines[0].startswith("lm_weight 1, word_score 0: WER ")
    assert lines[-1].startswith(f"greedy WER {result['greedy_wer']:.2f}; best: lm_weight 1, word_score ")
    assert result["decoder"]["type"] == "lexicon_beam" and result["decoder"]["beam_size"] == 5
