import os

import pytest
from allennlp.common.checks import ConfigurationError

from srcframework.common.paths import check_output_path


def test_a_file_in_an_existing_writable_folder_passes(tmp_path):
    check_output_path(str(tmp_path / "out.json"), "output file")
    (tmp_path / "out.json").write_text("old")  # an existing file is replaced later, not refused
    check_output_path(str(tmp_path / "out.json"), "output file")
    assert os.listdir(tmp_path) == ["out.json"]  # the write probe leaves nothing behind


def test_a_missing_folder_is_a_one_line_error(tmp_path):
    with pytest.raises(ConfigurationError) as error:
        check_output_path(str(tmp_path / "no" / "out.json"), "transcribe output file")
    message = str(error.value.message)
    assert "\n" not in message
    assert message == f"transcribe output file {tmp_path / 'no' / 'out.json'}: the folder {tmp_path / 'no'} does not exist"


def test_a_folder_where_a_file_goes_and_a_file_where_a_folder_goes(tmp_path):
    with pytest.raises(ConfigurationError, match="is a folder, not a file"):
        check_output_path(str(tmp_path), "output file")
    (tmp_path / "f").write_text("x")
    with pytest.raises(ConfigurationError, match="is a file, not a folder"):
        check_output_path(str(tmp_path / "f"), "cascade output folder", is_dir=True)
    with pytest.raises(ConfigurationError, match="f is a file, not a folder"):
        check_output_path(str(tmp_path / "f" / "out.json"), "output file")
    with pytest.raises(ConfigurationError, match="f is a file, not a folder"):
        check_output_path(str(tmp_path / "f" / "sub" / "deeper"), "cascade output folder", is_dir=True)


def test_an_output_folder_may_be_created_below_a_writable_one(tmp_path):
    check_output_path(str(tmp_path / "runs" / "cascade"), "cascade output folder", is_dir=True)
    check_output_path(str(tmp_path), "cascade output folder", is_dir=True)
    assert os.listdir(tmp_path) == []


def test_an_unwritable_folder_is_an_error(tmp_path):
    # /proc refuses new files even to root, for whom permission bits do not count
    with pytest.raises(ConfigurationError, match=r"output file /proc/out.json: cannot write in the folder /proc"):
        check_output_path("/proc/out.json", "output file")
    with pytest.raises(ConfigurationError, match=r"cannot write in the folder /proc"):
        check_output_path("/proc/new_folder/sub", "cascade output folder", is_dir=True)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in read-only folders")
def test_a_read_only_folder_is_an_error(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(ConfigurationError, match="cannot write in the folder"):
            check_output_path(str(folder / "out.json"), "output file")
    finally:
        folder.chmod(0o755)
