"""SoX perturbation: a SoX run that crashes (SIGSEGV and the like) is run again and one that crashes every
time is `SoxCrashed`; one that fails, or is killed from outside, is one error."""
import os
import shutil
import stat

import numpy
import pytest

from srcframework.data.audio_perturbation import AudioPerturbation

SOX = shutil.which("sox")
pytestmark = pytest.mark.skipif(SOX is None, reason="needs sox (make install)")


def sox_on_path(tmp_path, monkeypatch, body):
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "sox"
    script.write_text("#!/bin/bash\n" + body.replace("REAL_SOX", SOX).replace("COUNT", str(tmp_path / "runs")) + "\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


def tone():
    return (0.3 * numpy.sin(numpy.arange(8000) * 2 * numpy.pi * 220 / 16000)).astype(numpy.float32)


SETTINGS = {"speed": 1.05, "pitch": 50.0, "gain_db": -2.0}


def test_a_sox_crash_is_run_again_and_gives_the_same_audio(tmp_path, monkeypatch):
    perturbation = AudioPerturbation()
    expected = perturbation.apply(tone(), 16000, SETTINGS)
    # the first run crashes (SIGSEGV), the second is the real SoX
    sox_on_path(tmp_path, monkeypatch, 'echo run >> COUNT\n'
                'if [ "$(wc -l < COUNT)" -eq 1 ]; then kill -SEGV $$; fi\nexec REAL_SOX "$@"')
    got = perturbation.apply(tone(), 16000, SETTINGS)
    assert (tmp_path / "runs").read_text().count("run") == 2
    numpy.testing.assert_array_equal(got, expected)


def test_a_sox_that_keeps_failing_is_one_error(tmp_path, monkeypatch):
    perturbation = AudioPerturbation()
    sox_on_path(tmp_path, monkeypatch, 'echo run >> COUNT\necho "no such effect" >&2\nexit 2')
    with pytest.raises(RuntimeError, match=r"sox failed \(exit 2\): no such effect"):
        perturbation.apply(tone(), 16000, SETTINGS)
    assert (tmp_path / "runs").read_text().count("run") == 1  # an error exit is not retried


def test_sox_killed_from_outside_is_an_error_not_a_crash(tmp_path, monkeypatch):
    from srcframework.data.audio_perturbation import SoxCrashed

    perturbation = AudioPerturbation()
    sox_on_path(tmp_path, monkeypatch, 'echo run >> COUNT\nkill -KILL $$')
    with pytest.raises(RuntimeError, match=r"sox failed \(exit -9\)") as raised:
        perturbation.apply(tone(), 16000, SETTINGS)
    assert not isinstance(raised.value, SoxCrashed)
    assert (tmp_path / "runs").read_text().count("run") == 1


def test_sox_that_crashes_every_time_is_sox_crashed_after_three_runs(tmp_path, monkeypatch):
    from srcframework.data.audio_perturbation import SOX_ATTEMPTS, SoxCrashed

    perturbation = AudioPerturbation()
    sox_on_path(tmp_path, monkeypatch, 'echo run >> COUNT\nkill -SEGV $$')
    with pytest.raises(SoxCrashed, match=r"sox was killed by signal 11 on each of 3 runs"):
        perturbation.apply(tone(), 16000, SETTINGS)
    assert (tmp_path / "runs").read_text().count("run") == SOX_ATTEMPTS
