import numpy
import pytest
import soundfile
from allennlp.common import Params

from srcframework.data.audio_indexers.audio_indexer import AudioIndexer, AudioTooLong, WaveformIndexer
from srcframework.common.audio import read_wav, write_wav_atomic
from srcframework.speech.flite import FliteSynthesizer

QUESTION = "When was the harbour of Velmont dredged?"


@pytest.fixture(scope="module")
def speech():
    """A real flite utterance at 16 kHz (voice kal16) and at 8 kHz (voice kal)."""
    wide, wide_rate = FliteSynthesizer("kal16").synthesize(QUESTION)
    narrow, narrow_rate = FliteSynthesizer("kal").synthesize(QUESTION)
    assert (wide_rate, narrow_rate) == (16000, 8000)
    return wide, narrow


def test_reads_a_16k_file_unchanged_without_normalize(tmp_path, speech):
    wide, _ = speech
    path = tmp_path / "q.wav"
    write_wav_atomic(path, wide, 16000)
    prepared = WaveformIndexer(normalize=False).prepare(path)
    assert prepared.dtype == numpy.float32 and prepared.shape == wide.shape
    assert numpy.allclose(prepared, wide, atol=1 / 32000)


def test_normalize_gives_zero_mean_unit_variance(tmp_path, speech):
    wide, _ = speech
    path = tmp_path / "q.wav"
    write_wav_atomic(path, wide * 0.1, 16000)
    prepared = WaveformIndexer().prepare(path)
    assert abs(float(prepared.mean())) < 1e-4
    assert float(prepared.std()) == pytest.approx(1.0, abs=1e-2)
    # the same as transformers' feature extractors with do_normalize=True
    from transformers import Wav2Vec2FeatureExtractor

    raw = WaveformIndexer(normalize=False).prepare(path)
    expected = Wav2Vec2FeatureExtractor.zero_mean_unit_var_norm([raw], [numpy.ones(len(raw), numpy.int32)])[0]
    assert numpy.allclose(prepared, expected, atol=1e-5)
    silence = WaveformIndexer().prepare(numpy.zeros(1600, numpy.float32), 16000)
    assert numpy.all(numpy.isfinite(silence)) and not silence.any()


def test_resamples_an_8k_recording(tmp_path, speech):
    _, narrow = speech
    path = tmp_path / "q8k.wav"
    write_wav_atomic(path, narrow, 8000)
    prepared = WaveformIndexer(normalize=False).prepare(path)
    assert len(prepared) == 2 * len(narrow)
    # the 16 kHz version follows the 8 kHz one: compare with plain linear interpolation
    times = numpy.arange(len(prepared)) / 16000
    interpolated = numpy.interp(times, numpy.arange(len(narrow)) / 8000, narrow)
    assert numpy.corrcoef(prepared, interpolated)[0, 1] > 0.9
    to_8k = WaveformIndexer(target_sample_rate=8000, normalize=False).prepare(path)
    assert numpy.allclose(to_8k, narrow, atol=1 / 32000)


def test_downmixes_stereo(tmp_path, speech):
    wide, _ = speech
    path = tmp_path / "stereo.wav"
    soundfile.write(path, numpy.stack([wide, 0.25 * wide], axis=1), 16000, subtype="FLOAT")
    assert soundfile.info(path).channels == 2
    prepared = WaveformIndexer(normalize=False).prepare(path)
    assert prepared.ndim == 1 and numpy.allclose(prepared, 0.625 * wide, atol=1e-6)
    channels_first = WaveformIndexer(normalize=False).prepare(numpy.stack([wide, 0.25 * wide]), 16000)
    assert numpy.allclose(channels_first, prepared, atol=1e-6)


def test_waveform_and_path_agree(tmp_path, speech):
    _, narrow = speech
    path = tmp_path / "q.wav"
    write_wav_atomic(path, narrow, 8000)
    from_file = WaveformIndexer().prepare(path)
    from_memory = WaveformIndexer().prepare(*read_wav(path))
    assert numpy.allclose(from_file, from_memory)
    with pytest.raises(ValueError, match="needs its sample_rate"):
        WaveformIndexer().prepare(narrow)
    with pytest.raises(ValueError, match="read from the file"):
        WaveformIndexer().prepare(path, 8000)


def test_length_cap_truncate_skip_error(tmp_path, speech):
    wide, _ = speech
    path = tmp_path / "long.wav"
    write_wav_atomic(path, wide, 16000)
    seconds = len(wide) / 16000
    assert seconds > 1.5
    truncated = WaveformIndexer(max_seconds=1.0, normalize=False).prepare(path)
    assert len(truncated) == 16000 and numpy.allclose(truncated, wide[:16000], atol=1 / 32000)
    normalized = WaveformIndexer(max_seconds=1.0).prepare(path)
    assert float(normalized.std()) == pytest.approx(1.0, abs=1e-2)  # normalised over the kept part
    assert WaveformIndexer(max_seconds=1.0, overflow="skip").prepare(path) is None
    with pytest.raises(AudioTooLong, match=f"long.wav: {seconds:.2f} s of audio, longer than max_seconds=1.0"):
        WaveformIndexer(max_seconds=1.0, overflow="error").prepare(path)
    for overflow in ("truncate", "skip", "error"):
        kept = WaveformIndexer(max_seconds=seconds + 0.1, overflow=overflow, normalize=False).prepare(path)
        assert len(kept) == len(wide)
    assert len(WaveformIndexer(max_seconds=None, overflow="error").prepare(path)) == len(wide)


def test_length_cap_counts_target_rate_samples(tmp_path, speech):
    _, narrow = speech
    path = tmp_path / "q8k.wav"
    write_wav_atomic(path, narrow, 8000)
    assert len(WaveformIndexer(max_seconds=0.5).prepare(path)) == 8000


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"overflow": "drop"}, "overflow must be one of truncate, skip, error"),
        ({"max_seconds": 0}, "max_seconds must be positive"),
        ({"target_sample_rate": 0}, "target_sample_rate must be a positive integer"),
        ({"target_sample_rate": 16000.5}, "target_sample_rate must be a positive integer"),
    ],
)
def test_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        WaveformIndexer(**kwargs)


def test_bad_files_are_named(tmp_path):
    missing = tmp_path / "missing.wav"
    with pytest.raises(FileNotFoundError, match="missing.wav"):
        WaveformIndexer().prepare(missing)
    empty = tmp_path / "empty.wav"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="empty.wav"):
        WaveformIndexer().prepare(empty)
    corrupt = tmp_path / "corrupt.wav"
    corrupt.write_bytes(b"RIFF" + bytes(range(200)))
    with pytest.raises(ValueError, match="corrupt.wav"):
        WaveformIndexer().prepare(corrupt)
    with pytest.raises(ValueError, match="no samples"):
        WaveformIndexer().prepare(numpy.zeros(0), 16000)
    with pytest.raises(ValueError, match="mine: the waveform holds NaN"):
        WaveformIndexer().prepare(numpy.array([0.0, numpy.nan]), 16000, source="mine")


def test_from_params():
    default = AudioIndexer.from_params(Params({}))
    assert isinstance(default, WaveformIndexer)
    assert (default.target_sample_rate, default.max_seconds, default.overflow, default.normalize) == (16000, 15.0, "truncate", True)
    indexer = AudioIndexer.from_params(Params({"type": "waveform", "max_seconds": 4, "overflow": "skip", "normalize": False}))
    assert (indexer.max_samples, indexer.overflow, indexer.normalize) == (64000, "skip", False)
