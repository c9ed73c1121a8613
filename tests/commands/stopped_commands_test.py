"""A command stopped by Ctrl-C or SIGTERM ends with one line (what is kept, that the same command
resumes), not a KeyboardInterrupt traceback, and its worker processes print nothing."""
import os
import signal
import subprocess
import sys
import textwrap

import pytest
from allennlp.common.util import SigTermReceived

from srcframework.commands import cli_errors
from tests.conftest import ROOT


@pytest.mark.parametrize("command", ["noise", "transcribe", "cascade", "compare", "synthesize-speech"])
def test_a_resumable_job_stopped_by_ctrl_c_says_the_same_command_resumes(command, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["allennlp", command, "in.json", "out.json"])
    monkeypatch.delenv(cli_errors.DEBUG_ENV, raising=False)
    cli_errors.excepthook(KeyboardInterrupt, KeyboardInterrupt(), None)
    assert capsys.readouterr().err == (
        f"stopped by Ctrl-C: allennlp {command} keeps what it finished, and the same command resumes it\n")


def test_evaluate_stopped_by_sigterm_says_its_output_is_not_complete(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["allennlp", "evaluate", "model.tar.gz", "dev.json"])
    monkeypatch.delenv(cli_errors.DEBUG_ENV, raising=False)
    cli_errors.excepthook(SigTermReceived, SigTermReceived(), None)
    assert capsys.readouterr().err == (
        "stopped by SIGTERM: allennlp evaluate did not finish, so what it was writing is incomplete or not written\n")


@pytest.mark.slow
def test_ctrl_c_while_workers_run_is_one_line_from_the_whole_process_group():
    program = textwrap.dedent("""
        import sys, time
        sys.argv = ["allennlp", "noise", "in.json", "out.json"]
        from srcframework.commands import cli_errors
        cli_errors.install(force=True)
        from srcframework.common.worker_pool import worker_results
        with worker_results(time.sleep, [0, 120], workers=2) as results:
            for _ in results:
                print("ready", flush=True)
    """)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop(cli_errors.DEBUG_ENV, None)
    # as from a terminal: SIGINT not ignored, even where the tests run in the background of a shell
    # without job control (which starts them with SIGINT ignored, and a child inherits that)
    child = subprocess.Popen([sys.executable, "-c", program], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert child.stdout.readline() == "ready\n"
        os.killpg(child.pid, signal.SIGINT)  # as a terminal's Ctrl-C does: the parent and its workers
        _, stderr = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
    assert child.returncode == -signal.SIGINT
    assert stderr == "stopped by Ctrl-C: allennlp noise keeps what it finished, and the same command resumes it\n"
