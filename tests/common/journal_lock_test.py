"""A job holds a lock on its journal (`noise`, `transcribe`, the cascade's transcription) or on
its output folder (`cascade`): a second run writing the same output at the same time stops
with one line naming the running one, a journal a running job holds is never called one to delete,
and a lock left by a killed process does not block the next run."""
import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from srcframework.common.journal import JournalBusy, JournalLock, JournalWriter, lock_holder, read_journal
from srcframework.data.squad_src_layout import SquadSrcFolder
from srcframework.jobs.cascade import run_cascade
from srcframework.jobs.challenge_set import make_challenge_set
from srcframework.jobs.transcription import TranscriptionSettings, journal_path_of, transcribe_folder
from tests.conftest import FIXTURES, ROOT

TINY = str(FIXTURES / "squad_tiny.json")


def hold_lock(journal: str) -> subprocess.Popen:
    """Another process that takes the lock of `journal` and waits; it prints `locked` when it has it."""
    program = textwrap.dedent(f"""
        import sys, time
        from srcframework.common.journal import JournalLock
        with JournalLock({journal!r}):
            print("locked", flush=True)
            time.sleep(300)
    """)
    child = subprocess.Popen([sys.executable, "-c", program, "--as", "a-running-job"], cwd=ROOT,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline() == "locked\n"
    return child


def test_a_second_lock_of_the_same_journal_is_refused_naming_the_first(tmp_path):
    journal = str(tmp_path / "out.json.journal.jsonl")
    with JournalLock(journal):
        assert lock_holder(journal).startswith(f"process {os.getpid()}, since ")
        with pytest.raises(JournalBusy) as busy:
            JournalLock(journal).__enter__()
        message = str(busy.value)
        assert message.startswith(f"another run is writing the journal {journal} now (process {os.getpid()}, since ")
        assert message.endswith("wait for it to end, or give another output path") and "\n" not in message
    assert not os.path.exists(journal + ".lock") and lock_holder(journal) is None
    with JournalLock(journal):  # free again
        pass


def test_a_live_journal_of_another_job_is_not_one_to_delete(tmp_path):
    journal = str(tmp_path / "out.json.journal.jsonl")
    with JournalLock(journal), JournalWriter(journal, {"key": "seed 1"}) as writer:
        writer.append([{"id": "q1"}])
        with pytest.raises(JournalBusy) as busy:
            read_journal(journal, "seed 2", "another noise configuration, seed or input file")
        assert "which is running now (process" in str(busy.value) and "delete" not in str(busy.value)
    with pytest.raises(ValueError, match="delete it"):  # once nothing runs, the old advice holds
        read_journal(journal, "seed 2", "another noise configuration, seed or input file")


@pytest.mark.slow
def test_a_challenge_set_run_stops_while_another_writes_the_same_output(tmp_path):
    output = tmp_path / "dev-keyboard.json"
    journal = f"{output}.journal-0-of-1.jsonl"
    child = hold_lock(journal)
    try:
        with pytest.raises(JournalBusy) as busy:
            make_challenge_set(str(FIXTURES / "squad_tiny.json"), str(output), {"type": "keyboard"}, progress=False)
        assert f"(process {child.pid}, since " in str(busy.value) and "a-running-job" in str(busy.value)
        assert not output.exists()
    finally:
        child.send_signal(signal.SIGKILL)  # killed: the kernel drops its lock, its lock file stays
        child.wait()
    assert os.path.exists(journal + ".lock")
    summary = make_challenge_set(str(FIXTURES / "squad_tiny.json"), str(output), {"type": "keyboard"}, progress=False)
    assert summary["complete"] and json.loads(output.read_text())["data"]
    assert not os.path.exists(journal + ".lock")


def test_a_transcription_stops_while_another_writes_the_same_output(tmp_path, spoken_tiny):
    output = tmp_path / "transcripts.json"
    with JournalLock(journal_path_of(str(output))):  # held by this process: flock refuses a second open
        with pytest.raises(JournalBusy) as busy:
            transcribe_folder(str(spoken_tiny), str(output), "pocketsphinx", squad_path=TINY, progress=False)
    message = str(busy.value)
    assert f"(process {os.getpid()}, since " in message and "\n" not in message
    assert not output.exists()


def cascade_into(out_dir, src_dir):
    """`run_cascade` of `src_dir` into `out_dir`; the archive is a placeholder file, since a run
    that finds OUT_DIR busy stops before it loads one."""
    archive = out_dir.parent / "model.tar.gz"
    archive.write_bytes(b"not loaded")
    return run_cascade(SquadSrcFolder(str(src_dir), squad_file=TINY), str(archive), str(out_dir),
                       TranscriptionSettings(progress=False))


def test_a_cascade_stops_while_another_writes_into_the_same_folder(tmp_path, spoken_tiny):
    out = tmp_path / "cascade"
    out.mkdir()
    (out / "metrics.json").write_text('{"of": "the running one"}')
    with JournalLock(str(out / "cascade")):
        with pytest.raises(JournalBusy) as busy:
            cascade_into(out, spoken_tiny)
    message = str(busy.value)
    assert message.startswith(f"another run is writing the cascade output folder {out} now (process {os.getpid()}, ")
    assert "\n" not in message
    assert (out / "metrics.json").read_text() == '{"of": "the running one"}'  # nothing removed
    assert not (out / "transcripts.json.journal.jsonl").exists()


def test_a_cascade_stops_while_a_transcription_writes_its_transcripts(tmp_path, spoken_tiny):
    out = tmp_path / "cascade"
    out.mkdir()
    with JournalLock(journal_path_of(str(out / "transcripts.json"))):
        with pytest.raises(JournalBusy) as busy:
            cascade_into(out, spoken_tiny)
    assert f"(process {os.getpid()}, since " in str(busy.value) and "\n" not in str(busy.value)
    assert not (out / "transcripts.json").exists() and not (out / "cascade.lock").exists()
