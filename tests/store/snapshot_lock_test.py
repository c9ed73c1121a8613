"""`snapshot.restore` never replaces the journals of a job that is running: it stops with one line
naming that job, and restores them once the job has ended."""
import os

import pytest

from srcframework.common.errors import InputError
from srcframework.common.journal import JournalLock
from srcframework.store import snapshot


def test_journals_a_running_job_holds_are_not_replaced(tmp_path):
    output = tmp_path / "noisy" / "train_asr.json"
    output.parent.mkdir()
    journal = output.parent / "train_asr.json.journal-0-of-1.jsonl"
    journal.write_text('{"key": "k"}\n{"id": "q1", "question": "who"}\n{"id": "q2", "question": "what"}\n')
    snapshot.save(str(output), folder=str(tmp_path / "s"))
    journal.write_text('{"key": "k"}\n')  # a run here started afresh and is writing it now
    with JournalLock(str(journal)):
        with pytest.raises(InputError) as refused:
            snapshot.restore(str(output), folder=str(tmp_path / "s"))
        message = str(refused.value)
        assert f"{journal} is being written by a running job (process {os.getpid()}, since " in message
        assert "\n" not in message
        assert journal.read_text() == '{"key": "k"}\n'
    assert snapshot.restore(str(output), folder=str(tmp_path / "s"))["restored"]  # the job has ended
    assert journal.read_text().count("\n") == 3
