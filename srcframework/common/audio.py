"""Waveform helpers shared by the readers and the speech engines: float32 mono conversion, resampling, WAV I/O.

Audio is read and written with `soundfile` (never `torchaudio.load`); resampling uses
`torchaudio.functional.resample`.
"""
import io
import logging
import os
from typing import Optional

import numpy
import soundfile
import torch
import torchaudio

from srcframework.common.files import write_bytes_atomic

logger = logging.getLogger(__name__)

# The longest spoken question a model or a recognizer hears, in seconds: the default `max_seconds`
# of the `waveform` audio indexer (so of the `squad_src` reader) and of `transcribe` (and so of
# `cascade`), so that an end-to-end model and a cascade hear the same audio of a long recording
MAX_QUESTION_SECONDS = 15.0


def cut_to_limit(waveform: numpy.ndarray, rate: int, max_seconds: Optional[float], source: str) -> numpy.ndarray:
    """The first `max_seconds` of `waveform` (recorded at `rate`), logging the cut with the file and
    both lengths; the waveform itself when it is no longer, or when `max_seconds` is None."""
    if max_seconds is None:
        return waveform
    limit = int(round(max_seconds * rate))
    if waveform.shape[0] <= limit:
        return waveform
    logger.warning("%s: %.2f s of audio cut to its first %.2f s (max_seconds %s)", source, waveform.shape[0] / rate,
                   limit / rate, max_seconds)
    return waveform[:limit]


def to_mono_float32(array) -> numpy.ndarray:
    """
    A 1-D float32 waveform from a numpy array (or anything `numpy.asarray` takes, torch tensors
    included). Integer samples are scaled to [-1, 1] (int16 by 32768, int32 by 2**31, uint8 around
    128); float samples are kept as they are. A 2-D array is taken to hold several channels along
    its shorter axis, so `(frames, channels)` (soundfile) and `(channels, frames)` (torchaudio)
    both work; the channels are averaged.
    """
    if isinstance(array, torch.Tensor):
        array = array.detach().cpu().numpy()
    array = numpy.asarray(array)
    if array.ndim == 2:
        channel_axis = 0 if array.shape[0] < array.shape[1] else 1
        array = _scale_to_float(array).mean(axis=channel_axis)
    elif array.ndim == 1:
        array = _scale_to_float(array)
    else:
        raise ValueError(f"expected a 1-D or 2-D waveform, got an array of shape {array.shape}")
    return numpy.ascontiguousarray(array, dtype=numpy.float32)


def _scale_to_float(array: numpy.ndarray) -> numpy.ndarray:
    if array.dtype == numpy.uint8:
        return (array.astype(numpy.float32) - 128.0) / 128.0
    if numpy.issubdtype(array.dtype, numpy.integer):
        return array.astype(numpy.float32) / float(-numpy.iinfo(array.dtype).min)
    if numpy.issubdtype(array.dtype, numpy.floating):
        return array.astype(numpy.float32, copy=False)
    raise ValueError(f"cannot use samples of type {array.dtype} as audio")


def resample(waveform: numpy.ndarray, from_rate: int, to_rate: int) -> numpy.ndarray:
    """`waveform` (mono, any dtype `to_mono_float32` takes) at `to_rate`, as float32."""
    if int(from_rate) != from_rate or int(to_rate) != to_rate or from_rate <= 0 or to_rate <= 0:
        raise ValueError(f"sample rates must be positive integers, got {from_rate} and {to_rate}")
    waveform = to_mono_float32(waveform)
    if from_rate == to_rate or waveform.size == 0:
        return waveform
    resampled = torchaudio.functional.resample(torch.from_numpy(waveform), int(from_rate), int(to_rate))
    return resampled.numpy().astype(numpy.float32, copy=False)


def read_wav(path: str, allow_empty: bool = False):
    """
    `(float32 mono waveform, sample_rate)` of an audio file soundfile can read (WAV, FLAC, OGG...).
    A missing file raises `FileNotFoundError`; an empty, unreadable or (unless `allow_empty`)
    sample-less file raises `ValueError`; each message names the file.
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"audio file not found: {path}")
    if os.path.getsize(path) == 0:
        raise ValueError(f"audio file is empty (0 bytes): {path}")
    try:
        samples, rate = soundfile.read(path, dtype="float32", always_2d=True)
    except (soundfile.LibsndfileError, RuntimeError) as error:
        # libsndfile's own text names the file again ("Error opening 'PATH': Format not recognised.")
        why = getattr(error, "error_string", None) or str(error).replace(f"Error opening {path!r}: ", "")
        raise ValueError(f"cannot read audio file {path}: {why}") from None
    if samples.shape[0] == 0 and not allow_empty:
        raise ValueError(f"audio file has no samples: {path}")
    return numpy.ascontiguousarray(samples.mean(axis=1), dtype=numpy.float32), int(rate)


SILENCE_PEAK = 1e-4  # -80 dBFS: three steps of 16-bit audio


class SilentAudio(ValueError):
    """A recording is silent (`silence`): refused by `transcribe`, `cascade` and the `squad_src`
    reader alike, since a recognizer or a model would make up words for it."""


def check_not_silent(waveform: numpy.ndarray, source) -> None:
    """Raises `SilentAudio` naming `source` when `waveform` is silent (`silence`)."""
    why = silence(waveform)
    if why:
        raise SilentAudio(f"audio file is silent ({why}): {os.fspath(source)}")


def silence(waveform: numpy.ndarray) -> str:
    """Why `waveform` is silent ("all 16000 samples are zero", "no sample reaches -80 dBFS (peak
    3.1e-05)"), or "" when some sample is louder than `SILENCE_PEAK`."""
    peak = float(numpy.max(numpy.abs(waveform))) if waveform.size else 0.0
    if peak == 0.0:
        return f"all {waveform.size} samples are zero"
    if peak < SILENCE_PEAK:
        return f"no sample reaches -80 dBFS (peak {peak:.2g})"
    return ""


def read_valid_wav(path: str, refuse_silent: bool = False):
    """
    `read_wav(path)` that also refuses NaN or infinite samples: the checks the `waveform` audio
    indexer makes before a recording reaches a model. With `refuse_silent`, a recording that is
    silent (`silence`: all zero, or no sample reaching -80 dBFS) is refused too, as `transcribe`
    does: a recognizer would make up a word for it. Every problem (missing, empty, unreadable,
    sample-less, non-finite, silent) raises `FileNotFoundError` or `ValueError` naming the file.
    """
    waveform, rate = read_wav(path)
    bad = int(numpy.count_nonzero(~numpy.isfinite(waveform)))
    if bad:
        raise ValueError(f"audio file holds {bad} NaN or infinite samples: {os.fspath(path)}")
    if refuse_silent:
        check_not_silent(waveform, path)
    return waveform, rate


def float_to_int16(waveform: numpy.ndarray) -> numpy.ndarray:
    """16-bit PCM samples of a float waveform in [-1, 1]; values outside are clipped."""
    waveform = numpy.clip(numpy.asarray(waveform, dtype=numpy.float32), -1.0, 1.0)
    return numpy.round(waveform * 32767.0).astype(numpy.int16)


def write_wav_atomic(path: str, waveform: numpy.ndarray, rate: int, format: str = "WAV") -> None:
    """
    Writes `waveform` as 16-bit mono audio at `path` (making its folder) with `atomic_output`, so
    readers never see a half-written file: WAV, or with `format="FLAC"` the same samples compressed
    without loss. The file is encoded in memory first, so a full disk is a `DiskFull` line with the
    bytes it needed (and libsndfile never writes to a file that fails under it).
    """
    path = os.fspath(path)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    samples = float_to_int16(to_mono_float32(waveform))
    buffer = io.BytesIO()
    soundfile.write(buffer, samples, int(rate), subtype="PCM_16", format=format)
    write_bytes_atomic(path, buffer.getvalue())
