import os
from typing import Optional, Union

import numpy
from allennlp.common import Registrable

from srcframework.common.audio import MAX_QUESTION_SECONDS, check_not_silent, cut_to_limit, read_wav, resample, to_mono_float32
from srcframework.common.errors import InputError

OVERFLOW_CHOICES = ("truncate", "skip", "error")


class AudioTooLong(ValueError):
    """A recording is longer than `max_seconds` and the indexer's `overflow` is `"error"`."""


class AudioIndexer(Registrable):
    """
    Turns an audio file or an in-memory waveform into the float32 mono waveform an `AudioField`
    holds, at `target_sample_rate`. `prepare` returns None for a recording the indexer skips
    (too long with `overflow="skip"`), so a reader can count and log it.
    """

    default_implementation = "waveform"
    target_sample_rate: int = 16000

    def prepare(
        self, audio: Union[str, os.PathLike, numpy.ndarray], sample_rate: Optional[int] = None, source: Optional[str] = None,
        refuse_silent: bool = False,
    ) -> Optional[numpy.ndarray]:
        raise NotImplementedError


@AudioIndexer.register("waveform")
class WaveformIndexer(AudioIndexer):
    """
    Reads audio with soundfile (`srcframework.common.audio.read_wav`), averages stereo to mono,
    resamples to `target_sample_rate` (torchaudio.functional), caps the length and, with
    `normalize`, scales each utterance to zero mean and unit variance (what the wav2vec2 and
    SpeechT5 feature extractors do with `do_normalize=True`). The cap is applied before the
    normalisation, so a truncated recording is normalised over what is kept.

    # Parameters

    target_sample_rate : `int`, optional (default = `16000`)
    max_seconds : `float`, optional (default = `15.0`)
        The longest recording kept whole; `None` for no cap. The default is
        `common.audio.MAX_QUESTION_SECONDS`, the limit `transcribe` applies too.
    overflow : `str`, optional (default = `"truncate"`)
        What happens to a longer recording: `"truncate"` keeps its first `max_seconds` (and logs
        the cut, with the file and both lengths);
        `"skip"` makes `prepare` return None (the `squad_src` reader then counts and logs the
        skip); `"error"` raises `AudioTooLong` naming the file and its duration.
    normalize : `bool`, optional (default = `True`)
    """

    def __init__(
        self,
        target_sample_rate: int = 16000,
        max_seconds: Optional[float] = MAX_QUESTION_SECONDS,
        overflow: str = "truncate",
        normalize: bool = True,
    ) -> None:
        if int(target_sample_rate) != target_sample_rate or target_sample_rate <= 0:
            raise InputError(f"waveform indexer: target_sample_rate must be a positive integer, got {target_sample_rate!r}")
        if max_seconds is not None and not max_seconds > 0:
            raise InputError(f"waveform indexer: max_seconds must be positive (or null for no cap), got {max_seconds!r}")
        if overflow not in OVERFLOW_CHOICES:
            raise InputError(f"waveform indexer: overflow must be one of {', '.join(OVERFLOW_CHOICES)}; got {overflow!r}")
        self.target_sample_rate = int(target_sample_rate)
        self.max_seconds = max_seconds
        self.overflow = overflow
        self.normalize = normalize

    @property
    def max_samples(self) -> Optional[int]:
        if self.max_seconds is None:
            return None
        return int(round(self.max_seconds * self.target_sample_rate))

    def prepare(
        self, audio: Union[str, os.PathLike, numpy.ndarray], sample_rate: Optional[int] = None, source: Optional[str] = None,
        refuse_silent: bool = False,
    ) -> Optional[numpy.ndarray]:
        """
        The prepared waveform of `audio`: a file path (its own sample rate is used) or a waveform
        (1-D, or 2-D with channels along the shorter axis) recorded at `sample_rate`. None when
        the recording is too long and `overflow` is `"skip"`. `source` names the audio in errors.
        Missing, empty or unreadable files raise `FileNotFoundError` / `ValueError` naming them;
        with `refuse_silent`, a silent recording raises `SilentAudio` (`common.audio.silence`: all
        zero, or no sample reaching -80 dBFS), the rule `transcribe` follows.
        """
        if isinstance(audio, (str, os.PathLike)):
            source = source or os.fspath(audio)
            if sample_rate is not None:
                raise ValueError(f"{source}: sample_rate is read from the file; do not pass it")
            waveform, sample_rate = read_wav(audio)
        else:
            source = source or "waveform"
            if sample_rate is None:
                raise ValueError(f"{source}: an in-memory waveform needs its sample_rate")
            waveform = to_mono_float32(audio)
            if waveform.size == 0:
                raise ValueError(f"{source}: the waveform has no samples")
        if not numpy.all(numpy.isfinite(waveform)):
            raise ValueError(f"{source}: the waveform holds NaN or infinite samples")
        if refuse_silent:
            check_not_silent(waveform, source)
        waveform = resample(waveform, sample_rate, self.target_sample_rate)
        limit = self.max_samples
        if limit is not None and waveform.shape[0] > limit:
            if self.overflow == "skip":
                return None
            if self.overflow == "error":
                seconds = waveform.shape[0] / self.target_sample_rate
                raise AudioTooLong(f"{source}: {seconds:.2f} s of audio, longer than max_seconds={self.max_seconds}")
            waveform = cut_to_limit(waveform, self.target_sample_rate, self.max_seconds, source)
        if self.normalize:
            waveform = (waveform - waveform.mean()) / numpy.sqrt(waveform.var() + 1e-7)
        return numpy.ascontiguousarray(waveform, dtype=numpy.float32)
