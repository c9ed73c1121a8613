"""recipes/e2e_voices/seed_test.py: stage 3's seed-level test, each seed's held-out F1 minus cascade
C's, a one-sample t-test over the seeds."""
import importlib.util
import json

import pytest
from scipy import stats

from tests.conftest import ROOT

SPEC = importlib.util.spec_from_file_location("seed_test", ROOT / "recipes" / "e2e_voices" / "seed_test.py")
SCRIPT = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(SCRIPT)


def results(e2e_f1s, cascade_c=20.0, group="held_out"):
    seeds = [{"archive": f"runs/e2e_voices/e2e_finetune_s{k + 1}/model.tar.gz", "f1": f1, "em": f1 / 2, "seed": k}
             for k, f1 in enumerate(e2e_f1s)]
    return {"pairs": [
        {"model": "e2e", "set": f"spoken_{group}", "f1": sum(e2e_f1s) / len(e2e_f1s), "seeds": seeds},
        {"model": "bidaf", "set": f"cascade_c_{group}", "f1": cascade_c},
        {"model": "bidaf", "set": f"cascade_a_{group}", "f1": 99.0},  # another cascade is not the test's
    ]}


def test_the_test_is_scipys_one_sample_t_over_the_seed_differences(tmp_path, capsys):
    f1s = [21.0, 23.5, 19.8, 24.1]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results(f1s, cascade_c=20.0)))
    out = tmp_path / "seed_test.json"
    assert SCRIPT.main([str(path), "-o", str(out)]) == 0
    record = json.loads(out.read_text())
    expected = stats.ttest_1samp([f - 20.0 for f in f1s], 0.0)
    test = record["test"]
    assert record["planned"] is True and record["cascade_c_f1"] == 20.0
    assert record["differences"] == pytest.approx([1.0, 3.5, -0.2, 4.1])
    assert test["t"] == pytest.approx(expected.statistic) and test["p"] == pytest.approx(expected.pvalue)
    interval = expected.confidence_interval(0.95)
    assert (test["low"], test["high"]) == pytest.approx((interval.low, interval.high))
    assert test["seeds"] == 4 and test["df"] == 3
    assert json.loads(capsys.readouterr().out) == record


def test_the_seen_voices_are_descriptive(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results([30.0, 31.0], cascade_c=25.0, group="seen")))
    record = SCRIPT.seed_test(json.loads(path.read_text()), str(path), "seen")
    assert record["planned"] is False and record["test"]["mean"] == pytest.approx(5.5)


@pytest.mark.parametrize("content, message", [
    (results([21.0, 22.0]) | {"pairs": results([21.0, 22.0])["pairs"][:1]}, "no pair of model 'bidaf' on set 'cascade_c_held_out'"),
    (results([21.0]), "the end-to-end model has 1 seed(s) on spoken_held_out"),
])
def test_a_results_file_it_cannot_test_is_one_line(tmp_path, content, message):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(content))
    with pytest.raises(SystemExit) as stopped:
        SCRIPT.main([str(path)])
    assert str(stopped.value).startswith(f"error: {path}: ") and message in str(stopped.value)
    assert "\n" not in str(stopped.value)
