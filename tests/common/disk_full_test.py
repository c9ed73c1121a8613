"""A full disk (writes failing with ENOSPC) leaves every file as it was and is one line naming the
folder, the file and the bytes needed where known: srcframework's atomic writers, the journal of a
resumable job, and any other write that ends an `allennlp` command."""
import errno
import os
import sys

import pytest

from srcframework.commands import cli_errors
from srcframework.common.files import DiskFull, atomic_output, write_bytes_atomic, write_json_atomic
from srcframework.common.journal import JournalWriter, read_journal


class NoSpace:
    """A file whose writes fail as on a full disk."""

    def __init__(self, handle):
        self._handle = handle

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def flush(self):
        pass

    def __getattr__(self, name):
        return getattr(self._handle, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._handle.close()


def test_an_atomic_write_on_a_full_disk_keeps_the_old_file_and_says_what_it_needed(tmp_path, monkeypatch):
    target = tmp_path / "results.json"
    write_json_atomic(str(target), {"kept": True})
    real = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda *a, **k: NoSpace(real(*a, **k)))
    with pytest.raises(DiskFull) as error:
        write_bytes_atomic(str(target), b"x" * 5000)
    message = str(error.value)
    assert message.startswith(f"no space left on the device of {tmp_path}: results.json was not written (5,000 bytes needed, ")
    assert "bytes free); what was there before is kept" in message and "\n" not in message
    assert target.read_text() == '{"kept": true}' and os.listdir(tmp_path) == ["results.json"]
    with pytest.raises(DiskFull, match="results.json was not written \\([0-9,]+ bytes free\\)"):
        with atomic_output(str(target)) as handle:
            handle.write("new")
    assert isinstance(error.value.__cause__, OSError) and error.value.__cause__.errno == errno.ENOSPC


def test_a_journal_on_a_full_disk_keeps_its_rows(tmp_path, monkeypatch):
    journal = tmp_path / "out.json.journal"
    with JournalWriter(str(journal), {"key": "k"}) as writer:
        writer.append([{"id": "q1"}])
        with monkeypatch.context() as patch:
            patch.setattr(writer, "_handle", NoSpace(writer._handle))
            with pytest.raises(DiskFull, match=f"^no space left on the device of {tmp_path}: out.json.journal was not "
                                               "written \\(13 bytes needed, "):
                writer.append([{"id": "q2"}])
    assert [row["id"] for row in read_journal(str(journal), "k", "another job")] == ["q1"]


def test_a_raw_enospc_ending_a_command_is_one_line(tmp_path, capsys):
    error = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp_path / "out.bin"))
    cli_errors.excepthook(OSError, error, None, fallback=lambda *a: sys.__excepthook__(*a))
    printed = capsys.readouterr().err.strip()
    assert printed.startswith(f"error: no space left on the device of {tmp_path}: out.bin was not written (")
    assert "\n" not in printed
    cli_errors.excepthook(OSError, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), None)
    assert capsys.readouterr().err.strip() == ("error: no space left on the device (No space left on device) while "
                                               "writing: what was written before is kept; free some space and run the "
                                               "command again")


def test_allennlp_metrics_files_are_written_whole_or_not_at_all(tmp_path, monkeypatch):
    """`metrics.json` marks a finished training: a full disk must not leave a truncated one."""
    from allennlp.common import util
    from allennlp.training import util as training_util

    assert training_util.dump_metrics is util.dump_metrics  # AllenNLP's own callers see srcframework's writer
    util.dump_metrics(str(tmp_path / "metrics.json"), {"best_epoch": 1})
    real = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda *a, **k: NoSpace(real(*a, **k)))
    with pytest.raises(DiskFull, match=f"^no space left on the device of {tmp_path}: metrics.json was not written"):
        util.dump_metrics(str(tmp_path / "metrics.json"), {"best_epoch": 2})
    monkeypatch.undo()
    assert (tmp_path / "metrics.json").read_text() == '{\n  "best_epoch": 1\n}'
    assert os.listdir(tmp_path) == ["metrics.json"]
