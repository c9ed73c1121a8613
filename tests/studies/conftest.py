import json

import pytest


@pytest.fixture(scope="module")
def results(accent_study_dir):
    """The accent study's results.json (tests/conftest.py runs the study once a session)."""
    return json.loads((accent_study_dir / "results.json").read_text())
