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


def test_without_reverberation_and_noise_the_draws_are_those_of_speed_pitch_and_volume():
    import random

    plain = [AudioPerturbation().draw(random.Random(seed)) for seed in range(30)]
    assert all(set(settings) == {"speed", "pitch", "gain_db"} for settings in plain)
    with_room = [AudioPerturbation(reverberance=(10, 50), snr_db=(5, 30)).draw(random.Random(seed)) for seed in range(30)]
    # the first three draws come first and the same: a config that adds the options keeps them
    assert [{k: s[k] for k in ("speed", "pitch", "gain_db")} for s in with_room] == plain
    assert any("reverberance" in s for s in with_room) and any("reverberance" not in s for s in with_room)
    assert any("snr_db" in s for s in with_room) and any("snr_db" not in s for s in with_room)


@pytest.mark.parametrize("colour", ["white", "pink"])
def test_noise_is_added_at_the_drawn_signal_to_noise_ratio_and_repeats_for_the_same_settings(colour):
    from srcframework.data.audio_perturbation import add_noise

    clean = tone()
    noisy = add_noise(clean, 10.0, colour, seed=7)
    ratio = 10 * numpy.log10(numpy.mean(clean.astype(float) ** 2) / numpy.mean((noisy - clean).astype(float) ** 2))
    assert ratio == pytest.approx(10.0, abs=0.01)
    assert numpy.array_equal(noisy, add_noise(clean, 10.0, colour, seed=7))
    assert not numpy.array_equal(noisy, add_noise(clean, 10.0, colour, seed=8))
    assert not add_noise(numpy.zeros(100, dtype=numpy.float32), 10.0, colour, 1).any()  # silence stays silent


def test_pink_noise_has_more_power_low_than_high():
    from srcframework.data.audio_perturbation import add_noise

    noise = add_noise(numpy.ones(16000, dtype=numpy.float32) * 0.1, 0.0, "pink", seed=3) - 0.1
    spectrum = numpy.abs(numpy.fft.rfft(noise)) ** 2
    assert spectrum[10:200].mean() > 10 * spectrum[4000:8000].mean()


def test_reverberation_and_noise_change_the_audio_and_keep_its_length_and_rate():
    clean = tone()
    perturbation = AudioPerturbation(reverberance=(50, 50), reverb_probability=1.0, snr_db=(20, 20), noise_probability=1.0)
    settings = dict(SETTINGS, speed=1.0, reverberance=60.0, room_scale=80.0, snr_db=20.0, noise="white", noise_seed=5)
    out = perturbation.apply(clean, 16000, settings)
    plain = perturbation.apply(clean, 16000, dict(SETTINGS, speed=1.0))
    assert out.dtype == numpy.float32 and out.ndim == 1 and abs(out.size - clean.size) <= 2
    assert not numpy.allclose(out, plain, atol=1e-3)
    assert numpy.array_equal(out, perturbation.apply(clean, 16000, settings))


@pytest.mark.parametrize("options, message", [
    ({"reverberance": [10, 200]}, "reverberance must be [low, high] within [0.0, 100.0]"),
    ({"snr_db": [30, 5]}, "snr_db must be [low, high] within [-10.0, 60.0]"),
    ({"noise_probability": 2}, "noise_probability must be between 0 and 1"),
])
def test_bad_room_and_noise_settings_are_one_line(options, message):
    from srcframework.common.errors import InputError

    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        AudioPerturbation(**options)
