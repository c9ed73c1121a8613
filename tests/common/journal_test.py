import json

import pytest

from srcframework.common.journal import JournalWriter, read_journal


def test_rows_written_in_batches_are_read_back(tmp_path):
    path = str(tmp_path / "job.journal.jsonl")
    with JournalWriter(path, {"key": "k1", "what": "test"}) as journal:
        journal.append([{"id": "a", "value": 1}, {"id": "b", "value": "é"}])
    with JournalWriter(path, {"key": "k1", "what": "test"}) as journal:
        journal.append({"id": f"c{i}"} for i in range(2))
    lines = open(path, encoding="utf-8").read().splitlines()
    assert json.loads(lines[0]) == {"key": "k1", "what": "test"}  # one header, then the rows
    assert read_journal(path, "k1", "another job") == [
        {"id": "a", "value": 1}, {"id": "b", "value": "é"}, {"id": "c0"}, {"id": "c1"}]


def test_a_missing_journal_has_no_rows(tmp_path):
    assert read_journal(str(tmp_path / "none.jsonl"), "k", "another job") == []


def test_a_cut_last_line_is_ignored(tmp_path):
    path = tmp_path / "job.jsonl"
    path.write_text('{"key": "k"}\n{"id": "a"}\n{"id": "b", "val', encoding="utf-8")
    assert read_journal(str(path), "k", "another job") == [{"id": "a"}]


def test_another_jobs_journal_is_an_error(tmp_path):
    path = str(tmp_path / "job.jsonl")
    with JournalWriter(path, {"key": "old"}) as journal:
        journal.append([{"id": "a"}])
    with pytest.raises(ValueError, match="belongs to another recognizer.*start afresh"):
        read_journal(path, "new", "another recognizer")


def test_a_header_without_key_is_refused(tmp_path):
    with pytest.raises(ValueError, match="'key'"):
        JournalWriter(str(tmp_path / "j.jsonl"), {"seed": 1})


def test_a_torn_last_line_is_cut_off_before_new_rows_are_appended(tmp_path):
    """A run killed while writing row b leaves `{"id": "b", "val` with no newline; the resumed run
    must not glue its first row onto that fragment (that would lose the row and every later one)."""
    path = tmp_path / "job.jsonl"
    path.write_text('{"key": "k"}\n{"id": "a"}\n{"id": "b", "val', encoding="utf-8")
    with JournalWriter(str(path), {"key": "k"}) as journal:
        journal.append([{"id": "b"}, {"id": "c"}])
    assert path.read_text(encoding="utf-8") == '{"key": "k"}\n{"id": "a"}\n{"id": "b"}\n{"id": "c"}\n'
    assert read_journal(str(path), "k", "another job") == [{"id": "a"}, {"id": "b"}, {"id": "c"}]


def test_a_complete_looking_row_without_its_newline_is_torn_too(tmp_path):
    path = tmp_path / "job.jsonl"
    path.write_text('{"key": "k"}\n{"id": "a"}\n{"id": "b"}', encoding="utf-8")
    assert read_journal(str(path), "k", "another job") == [{"id": "a"}]
    with JournalWriter(str(path), {"key": "k"}) as journal:
        journal.append([{"id": "c"}])
    assert read_journal(str(path), "k", "another job") == [{"id": "a"}, {"id": "c"}]


def test_a_torn_header_starts_the_journal_afresh(tmp_path):
    path = tmp_path / "job.jsonl"
    path.write_text('{"ke', encoding="utf-8")
    assert read_journal(str(path), "k", "another job") == []
    with JournalWriter(str(path), {"key": "k"}) as journal:
        journal.append([{"id": "a"}])
    assert path.read_text(encoding="utf-8") == '{"key": "k"}\n{"id": "a"}\n'


def test_a_torn_line_longer_than_a_read_block_is_cut(tmp_path):
    path = tmp_path / "job.jsonl"
    path.write_text('{"key": "k"}\n{"id": "a"}\n{"id": "' + "x" * 200_000, encoding="utf-8")
    with JournalWriter(str(path), {"key": "k"}) as journal:
        journal.append([{"id": "b"}])
    assert read_journal(str(path), "k", "another job") == [{"id": "a"}, {"id": "b"}]


def test_a_broken_row_inside_the_journal_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "job.jsonl"
    path.write_text('{"key": "k"}\n{"id": "a"}\n{"id": \n{"id": "c"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"job.jsonl, line 3: not a JSON row"):
        read_journal(str(path), "k", "another job")
