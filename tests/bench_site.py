"""The folder `make install` puts allennlp-models into (Makefile BENCH_SITE), apart from the
runtime packages, and an environment that puts it on PYTHONPATH."""
import os
import sys
from pathlib import Path

import pytest

BENCH_SITE = Path(sys.prefix) / "bench-site"


def bench_env() -> dict:
    """os.environ with the bench site first on PYTHONPATH; a skip with the reason where it is absent."""
    if not (BENCH_SITE / "allennlp_models").is_dir():
        pytest.skip(f"allennlp-models is not installed in {BENCH_SITE} (make install puts it there)")
    paths = [str(BENCH_SITE)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths), OMP_NUM_THREADS="1")
