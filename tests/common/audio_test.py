import os

import numpy
import pytest
import soundfile
import torch

from srcframework.common.audio import float_to_int16, read_wav, resample, to_mono_float32, write_wav_atomic


def sine(frequency, rate, seconds=1.0):
    t = numpy.arange(int(rate * seconds)) / rate
    return (0.5 * numpy.sin(2 * numpy.pi * frequency * t)).astype(numpy.float32)


def dominant_frequency(waveform, rate):
    spectrum = numpy.abs(numpy.fft.rfft(waveform))
    return numpy.fft.rfftfreq(len(waveform), 1 / rate)[spectrum.argmax()]


def test_to_mono_float32_scales_integers():
    samples = numpy.array([0, 16384, -32768, 32767], dtype=numpy.int16)
    mono = to_mono_float32(samples)
    assert mono.dtype == numpy.float32
    assert numpy.allclose(mono, [0.0, 0.5, -1.0, 32767 / 32768])
    assert numpy.allclose(to_mono_float32(numpy.array([128, 255, 0], dtype=numpy.uint8)), [0.0, 127 / 128, -1.0])
    assert numpy.allclose(to_mono_float32(numpy.array([2**30], dtype=numpy.int32)), [0.5])


def test_to_mono_float32_downmixes_either_layout():
    left, right = numpy.full(100, 0.2, numpy.float32), numpy.full(100, 0.6, numpy.float32)
    frames_channels = numpy.stack([left, right], axis=1)  # soundfile layout
    assert numpy.allclose(to_mono_float32(frames_channels), 0.4)
    assert numpy.allclose(to_mono_float32(frames_channels.T), 0.4)  # torchaudio layout
    assert numpy.allclose(to_mono_float32(torch.from_numpy(frames_channels.T.copy())), 0.4)
    assert to_mono_float32(frames_channels).shape == (100,)
    with pytest.raises(ValueError, match="shape"):
        to_mono_float32(numpy.zeros((2, 2, 2)))


def test_resample_keeps_pitch_and_duration():
    waveform = sine(440, 22050)
    resampled = resample(waveform, 22050, 16000)
    assert resampled.dtype == numpy.float32
    assert abs(len(resampled) - 16000) <= 1
    assert abs(dominant_frequency(resampled, 16000) - 440) < 2
    assert resample(waveform, 22050, 22050) is not None and len(resample(waveform, 22050, 22050)) == 22050
    assert resample(numpy.zeros(0, numpy.float32), 8000, 16000).shape == (0,)
    with pytest.raises(ValueError, match="positive integers"):
        resample(waveform, 0, 16000)
    with pytest.raises(ValueError, match="positive integers"):
        resample(waveform, 22050.5, 16000)


def test_float_to_int16_clips_and_rounds():
    samples = float_to_int16(numpy.array([0.0, 1.0, -1.0, 2.0, -3.0, 0.5]))
    assert samples.tolist() == [0, 32767, -32767, 32767, -32767, 16384]
    assert float_to_int16(numpy.zeros(3)).dtype == numpy.int16


def test_write_then_read_round_trip(tmp_path):
    waveform = sine(300, 16000, 0.5)
    path = tmp_path / "sub" / "tone.wav"
    write_wav_atomic(path, waveform, 16000)
    loaded, rate = read_wav(path)
    assert rate == 16000
    assert loaded.dtype == numpy.float32 and loaded.shape == waveform.shape
    assert numpy.abs(loaded - waveform).max() < 1e-4
    assert soundfile.info(str(path)).subtype == "PCM_16"
    assert os.listdir(tmp_path / "sub") == ["tone.wav"]  # no temporary file left behind
    assert oct(os.stat(path).st_mode & 0o777) == oct(0o644)


def test_write_overwrites_and_failed_write_keeps_old_file(tmp_path):
    path = tmp_path / "a.wav"
    write_wav_atomic(path, numpy.zeros(100), 8000)
    write_wav_atomic(path, numpy.full(50, 0.25), 8000)
    assert read_wav(path)[0].shape == (50,)
    with pytest.raises(Exception):
        write_wav_atomic(path, numpy.full(10, 0.25), 0)  # soundfile refuses a 0 Hz rate
    assert read_wav(path)[0].shape == (50,)
    assert os.listdir(tmp_path) == ["a.wav"]


def test_read_wav_downmixes_stereo(tmp_path):
    path = tmp_path / "stereo.wav"
    stereo = numpy.stack([numpy.full(80, 0.5), numpy.full(80, -0.1)], axis=1)
    soundfile.write(str(path), stereo, 44100, subtype="PCM_16")
    loaded, rate = read_wav(path)
    assert rate == 44100 and loaded.shape == (80,)
    assert numpy.allclose(loaded, 0.2, atol=1e-4)


def test_read_wav_errors_name_the_file(tmp_path):
    missing = tmp_path / "missing.wav"
    with pytest.raises(FileNotFoundError, match="missing.wav"):
        read_wav(missing)
    empty = tmp_path / "empty.wav"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="empty.*empty.wav"):
        read_wav(empty)
    corrupt = tmp_path / "corrupt.wav"
    corrupt.write_bytes(b"RIFF\x00\x01garbage that is not audio" * 4)
    with pytest.raises(ValueError, match="cannot read audio file .*corrupt.wav"):
        read_wav(corrupt)
    silent = tmp_path / "no_samples.wav"
    soundfile.write(str(silent), numpy.zeros(0), 16000, subtype="PCM_16")
    with pytest.raises(ValueError, match="no samples.*no_samples.wav"):
        read_wav(silent)
    waveform, rate = read_wav(silent, allow_empty=True)
    assert waveform.shape == (0,) and rate == 16000


def test_read_valid_wav_refuses_nan_and_infinite_samples(tmp_path):
    import numpy
    import soundfile

    from srcframework.common.audio import read_valid_wav

    samples = numpy.zeros(1600, dtype=numpy.float32)
    samples[10], samples[20] = numpy.nan, numpy.inf
    path = tmp_path / "bad.wav"
    soundfile.write(str(path), samples, 16000, subtype="FLOAT")
    with pytest.raises(ValueError, match=r"holds 2 NaN or infinite samples: .*bad\.wav"):
        read_valid_wav(str(path))
    samples[10] = samples[20] = 0.25
    soundfile.write(str(path), samples, 16000, subtype="FLOAT")
    waveform, rate = read_valid_wav(str(path))
    assert rate == 16000 and waveform[10] == 0.25


def test_silence_names_all_zero_and_too_faint_audio():
    import numpy

    from srcframework.common.audio import silence

    assert silence(numpy.zeros(10, dtype=numpy.float32)) == "all 10 samples are zero"
    assert silence(numpy.full(10, 3e-5, dtype=numpy.float32)).startswith("no sample reaches -80 dBFS")
    assert silence(numpy.full(10, 0.001, dtype=numpy.float32)) == ""
