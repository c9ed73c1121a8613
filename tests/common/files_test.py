import json
import os

import pytest

from srcframework.common.files import atomic_output, write_json_atomic, write_lines_atomic, write_text_atomic


def test_writes_land_complete_with_no_temporary_left(tmp_path):
    write_json_atomic(str(tmp_path / "a.json"), {"x": "é"}, indent=1)
    write_lines_atomic(str(tmp_path / "b.jsonl"), [{"id": 1}, {"id": 2}])
    write_text_atomic(str(tmp_path / "c.md"), "# c\n")
    assert json.load(open(tmp_path / "a.json", encoding="utf-8")) == {"x": "é"}
    assert open(tmp_path / "b.jsonl").read() == '{"id": 1}\n{"id": 2}\n'
    assert (tmp_path / "c.md").read_text() == "# c\n"
    assert sorted(os.listdir(tmp_path)) == ["a.json", "b.jsonl", "c.md"]
    assert (os.stat(tmp_path / "a.json").st_mode & 0o777) == 0o644


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "out.json"
    path.write_text("old")
    with pytest.raises(RuntimeError, match="stop"):
        with atomic_output(str(path)) as handle:
            handle.write("half of the new")
            assert path.read_text() == "old"  # nothing reaches the destination while writing
            raise RuntimeError("stop")
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.json"]


def test_bytes_mode(tmp_path):
    with atomic_output(str(tmp_path / "b.bin"), "wb") as handle:
        handle.write(b"\x00\x01")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"


def test_file_sha256_hashes_the_bytes_and_text_sha256_the_utf8(tmp_path):
    import hashlib

    from srcframework.common.files import file_sha256, text_sha256, write_bytes_atomic

    payload = "é\n".encode("utf-8") * 300000  # more than one read block
    write_bytes_atomic(str(tmp_path / "a.bin"), payload)
    assert file_sha256(str(tmp_path / "a.bin")) == hashlib.sha256(payload).hexdigest()
    assert text_sha256("é\n" * 300000) == hashlib.sha256(payload).hexdigest()
    assert os.listdir(tmp_path) == ["a.bin"]


def test_named_files_fingerprints_the_files_and_folders_a_config_names(tmp_path, monkeypatch):
    from srcframework.common.files import file_sha256, named_files

    monkeypatch.chdir(tmp_path)
    (tmp_path / "list.txt").write_text("a->b\n")
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "weights.bin").write_bytes(b"0")
    found = named_files({"type": "x", "path": "list.txt", "inner": [{"model": "model"}], "voice": "kal16", "n": 3})
    assert list(found) == ["list.txt", "model"]
    assert found["list.txt"] == file_sha256("list.txt") and found["model"].startswith("dir:")
    (tmp_path / "model" / "more.bin").write_bytes(b"1")
    assert named_files({"m": "model"})["model"] != found["model"]


def test_read_json_gives_one_line_errors(tmp_path):
    from srcframework.common.errors import InputError, InputFileNotFound
    from srcframework.common.files import read_json

    good = tmp_path / "good.json"
    good.write_text('{"a": [1, 2]}', encoding="utf-8")
    assert read_json(str(good)) == {"a": [1, 2]}
    with pytest.raises(InputFileNotFound, match="missing.json: file not found"):
        read_json(str(tmp_path / "missing.json"))
    with pytest.raises(InputFileNotFound, match="^run the recipe first$"):
        read_json(str(tmp_path / "missing.json"), "run the recipe first")
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": ', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.json: not valid JSON: expecting value at line 1, column 7"):
        read_json(str(bad))
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InputError, match="not a UTF-8 text file"):
        read_json(str(binary))


def test_a_folder_fingerprint_passes_over_a_file_gone_while_it_is_read(tmp_path, monkeypatch):
    from srcframework.common import files

    (tmp_path / "a.flac").write_bytes(b"1")
    before = files.path_fingerprint(str(tmp_path))
    real_walk = os.walk

    def walk_with_a_vanished_file(path):  # a writer's temporary file listed, then renamed away
        for root, dirs, names in real_walk(path):
            yield root, dirs, names + [".a.flac.tmp"]

    monkeypatch.setattr(files.os, "walk", walk_with_a_vanished_file)
    assert files.path_fingerprint(str(tmp_path)) == before
