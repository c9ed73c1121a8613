"""The size limits (srcframework/store/limits.py) and what a folder holds."""
from srcframework.store import limits


def test_the_limits_and_a_folders_bytes(tmp_path):
    assert (limits.FILE_MAX_BYTES, limits.FOLDER_MAX_BYTES) == (20 * 1024 * 1024, 60 * 1024 * 1024)
    assert limits.folder_bytes(str(tmp_path / "none")) == 0
    (tmp_path / "a").write_bytes(b"x" * 10)
    (tmp_path / "inner").mkdir()
    (tmp_path / "inner" / "b").write_bytes(b"y" * 5)
    assert limits.folder_bytes(str(tmp_path)) == 15
