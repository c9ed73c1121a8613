"""`srcframework.common.onednn`: the primitive cache's cap, and a capacity the environment names kept."""
import os

from srcframework.common import onednn


def test_the_cap_is_set_where_the_environment_names_no_capacity(monkeypatch):
    monkeypatch.delenv(onednn.VARIABLE, raising=False)
    assert onednn.cap_primitive_cache() == "128"
    assert os.environ[onednn.VARIABLE] == "128"


def test_a_capacity_the_environment_names_is_kept(monkeypatch):
    monkeypatch.setenv(onednn.VARIABLE, "1024")
    assert onednn.cap_primitive_cache() == "1024"
