"""Per-utterance speed, pitch and volume perturbation of spoken questions in training, with SoX;
optionally a room's reverberation (SoX) and additive noise at a drawn signal-to-noise ratio."""
import io
import random
import shutil
import signal
import subprocess
from typing import Dict, Optional, Tuple

import numpy
import soundfile
from allennlp.common import FromParams

from srcframework.common.errors import InputError

INSTALL_HINT = "sox is not installed: apt-get update && apt-get install -y sox"


def _range(name: str, value, low: float, high: float) -> Tuple[float, float]:
    try:
        first, second = (float(v) for v in value)
    except (TypeError, ValueError):
        raise InputError(f"audio_perturbation: {name} must be [low, high], got {value!r}") from None
    if not (low <= first <= second <= high):
        raise InputError(f"audio_perturbation: {name} must be [low, high] within [{low}, {high}], got {value!r}")
    return first, second


# runs of SoX for one utterance when it crashes (dies by one of CRASH_SIGNALS)
SOX_ATTEMPTS = 3
CRASH_SIGNALS = {signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT, signal.SIGILL, signal.SIGFPE}


class SoxCrashed(RuntimeError):
    """SoX died by a signal on each of its `SOX_ATTEMPTS` runs for one utterance and its settings:
    on that input it crashes every time (SoX 14.4.2 does, with SIGSEGV, on one recording of the
    pretraining here with speed 1.0706 and pitch -118.1 cents)."""


class AudioPerturbation(FromParams):
    """
    Perturbs a training utterance as another speaker or microphone would: its speed (tempo and
    pitch together, as in Ko et al. 2015's speed perturbation), its pitch alone, and its volume,
    each drawn uniformly from its range. SoX does the signal work (`speed`, `pitch`, `gain`
    effects); the draws come from the `random.Random` the caller gives, so a reader can tie them
    to (noise seed, epoch, utterance).

    # Parameters

    speed : `Tuple[float, float]`, optional (default = `(0.9, 1.1)`)
        Range of the speed factor (1.0: unchanged), within [0.5, 2.0].
    pitch : `Tuple[float, float]`, optional (default = `(-200, 200)`)
        Range of the pitch shift in cents (100 cents = a semitone), within [-1200, 1200].
    gain_db : `Tuple[float, float]`, optional (default = `(-6, 6)`)
        Range of the volume change in dB, within [-30, 30]; the result is clipped to [-1, 1].
    probability : `float`, optional (default = `1.0`)
        The share of utterances perturbed; the others pass unchanged.
    reverberance : `Tuple[float, float]`, optional (default = `None`: no reverberation)
        Range of SoX's `reverb` reverberance in percent, within [0, 100], drawn for each perturbed
        utterance with a room scale from `room_scale`: a room's echo, as a far microphone hears it.
    room_scale : `Tuple[float, float]`, optional (default = `(20, 100)`)
        Range of the room scale in percent (with `reverberance`).
    reverb_probability : `float`, optional (default = `0.5`)
        The share of perturbed utterances that get reverberation (with `reverberance`).
    snr_db : `Tuple[float, float]`, optional (default = `None`: no added noise)
        Range of the signal-to-noise ratio in dB, within [-10, 60], of Gaussian noise added after
        the SoX effects, white or pink (1/f, as most room and fan noise) with equal odds; the
        noise is drawn from a seed in the settings, so the same settings give the same audio.
    noise_probability : `float`, optional (default = `0.5`)
        The share of perturbed utterances that get noise (with `snr_db`).

    Without `reverberance` and `snr_db`, the draws and the audio are those of the speed, pitch and
    volume perturbation alone (the options draw from the generator only when given).
    """

    def __init__(
        self,
        speed: Tuple[float, float] = (0.9, 1.1),
        pitch: Tuple[float, float] = (-200.0, 200.0),
        gain_db: Tuple[float, float] = (-6.0, 6.0),
        probability: float = 1.0,
        reverberance: Optional[Tuple[float, float]] = None,
        room_scale: Tuple[float, float] = (20.0, 100.0),
        reverb_probability: float = 0.5,
        snr_db: Optional[Tuple[float, float]] = None,
        noise_probability: float = 0.5,
    ) -> None:
        self.speed = _range("speed", speed, 0.5, 2.0)
        self.pitch = _range("pitch", pitch, -1200.0, 1200.0)
        self.gain_db = _range("gain_db", gain_db, -30.0, 30.0)
        self.probability = _share("probability", probability)
        self.reverberance = None if reverberance is None else _range("reverberance", reverberance, 0.0, 100.0)
        self.room_scale = _range("room_scale", room_scale, 0.0, 100.0)
        self.reverb_probability = _share("reverb_probability", reverb_probability)
        self.snr_db = None if snr_db is None else _range("snr_db", snr_db, -10.0, 60.0)
        self.noise_probability = _share("noise_probability", noise_probability)
        if shutil.which("sox") is None:
            raise InputError(INSTALL_HINT)

    def draw(self, rng: random.Random) -> Dict[str, float]:
        """The settings of one utterance: {} when it is left unchanged."""
        if rng.random() >= self.probability:
            return {}
        settings = {
            "speed": round(rng.uniform(*self.speed), 4),
            "pitch": round(rng.uniform(*self.pitch), 1),
            "gain_db": round(rng.uniform(*self.gain_db), 2),
        }
        if self.reverberance is not None and rng.random() < self.reverb_probability:
            settings["reverberance"] = round(rng.uniform(*self.reverberance), 1)
            settings["room_scale"] = round(rng.uniform(*self.room_scale), 1)
        if self.snr_db is not None and rng.random() < self.noise_probability:
            settings["snr_db"] = round(rng.uniform(*self.snr_db), 2)
            settings["noise"] = rng.choice(("white", "pink"))
            settings["noise_seed"] = rng.randrange(2**31)
        return settings

    def apply(self, waveform: numpy.ndarray, sample_rate: int, settings: Dict[str, float]) -> numpy.ndarray:
        """`waveform` (float32 mono) perturbed with `settings` (from `draw`), at the same rate."""
        if not settings or waveform.size == 0:
            return waveform
        source = io.BytesIO()
        soundfile.write(source, waveform, sample_rate, format="WAV", subtype="FLOAT")
        command = ["sox", "-t", "wav", "-", "-t", "wav", "-e", "floating-point", "-b", "32", "-",
                   "speed", str(settings["speed"]), "pitch", str(settings["pitch"]), "gain", str(settings["gain_db"])]
        if "reverberance" in settings:
            # wet and dry mixed; HF damping 50%, no stereo depth, no pre-delay, wet gain 0 dB
            command += ["reverb", str(settings["reverberance"]), "50", str(settings["room_scale"]), "0", "0", "0"]
        command += ["rate", str(sample_rate)]
        # SoX that crashes (SIGSEGV and the like) is run again, in case the crash was not the input's:
        # its output depends only on its input and settings
        for _ in range(SOX_ATTEMPTS):
            try:
                done = subprocess.run(command, input=source.getvalue(), capture_output=True)
            except FileNotFoundError:
                raise InputError(INSTALL_HINT) from None
            if -done.returncode not in CRASH_SIGNALS:
                break
        if -done.returncode in CRASH_SIGNALS:
            raise SoxCrashed(f"sox was killed by signal {-done.returncode} on each of {SOX_ATTEMPTS} runs with {settings}")
        if done.returncode != 0:  # an error, or killed from outside (SIGKILL, SIGTERM): not the input's doing
            message = " ".join(done.stderr.decode(errors="replace").split())[-300:]
            raise RuntimeError(f"sox failed (exit {done.returncode}): {message}")
        perturbed, rate = soundfile.read(io.BytesIO(done.stdout), dtype="float32")
        if rate != sample_rate:
            raise RuntimeError(f"sox returned {rate} Hz audio for {sample_rate} Hz input")
        perturbed = perturbed.reshape(-1) if perturbed.ndim == 1 else perturbed.mean(axis=1)
        if "snr_db" in settings:
            perturbed = add_noise(perturbed, settings["snr_db"], settings["noise"], settings["noise_seed"])
        return numpy.clip(perturbed, -1.0, 1.0).astype(numpy.float32, copy=False)


def _share(name: str, value) -> float:
    try:
        share = float(value)
    except (TypeError, ValueError):
        share = -1.0
    if not 0.0 <= share <= 1.0:
        raise InputError(f"audio_perturbation: {name} must be between 0 and 1, got {value!r}")
    return share


def add_noise(waveform: numpy.ndarray, snr_db: float, colour: str, seed: int) -> numpy.ndarray:
    """`waveform` plus Gaussian noise (`white`, or `pink`: its power falling as 1/f) scaled to
    `snr_db` below the waveform's mean power; silence stays silence (there is no signal to set the
    ratio against)."""
    power = float(numpy.mean(numpy.square(waveform, dtype=numpy.float64))) if waveform.size else 0.0
    if power == 0.0:
        return waveform
    noise = numpy.random.default_rng(seed).standard_normal(waveform.size)
    if colour == "pink":
        spectrum = numpy.fft.rfft(noise)
        frequencies = numpy.arange(spectrum.size, dtype=numpy.float64)
        frequencies[0] = 1.0
        noise = numpy.fft.irfft(spectrum / numpy.sqrt(frequencies), n=waveform.size)
    elif colour != "white":
        raise InputError(f"audio_perturbation: noise must be 'white' or 'pink', got {colour!r}")
    noise *= numpy.sqrt(power / (10.0 ** (snr_db / 10.0)) / max(float(numpy.mean(noise**2)), 1e-20))
    return (waveform + noise).astype(numpy.float32)
