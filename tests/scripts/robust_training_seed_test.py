import subprocess

from tests.conftest import ROOT


def test_a_seed_that_is_not_an_integer_is_refused_before_anything_runs(tmp_path):
    for args in ([], ["two"]):
        done = subprocess.run(["bash", str(ROOT / "scripts" / "robust_training_seed.sh"), *args],
                              capture_output=True, text=True)
        assert done.returncode != 0
        assert "SEED" in done.stderr and "Traceback" not in done.stderr
    assert not (ROOT / "runs" / "seedtwo").exists()
