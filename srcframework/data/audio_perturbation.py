"""Per-utterance speed, pitch and volume perturbation of spoken questions in training, with SoX."""
import io
import random
import shutil
import signal
import subprocess
from typing import Dict, Tuple

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
    """

    def __init__(
        self,
        speed: Tuple[float, float] = (0.9, 1.1),
        pitch: Tuple[float, float] = (-200.0, 200.0),
        gain_db: Tuple[float, float] = (-6.0, 6.0),
        probability: float = 1.0,
    ) -> None:
        self.speed = _range("speed", speed, 0.5, 2.0)
        self.pitch = _range("pitch", pitch, -1200.0, 1200.0)
        self.gain_db = _range("gain_db", gain_db, -30.0, 30.0)
        if not 0.0 <= float(probability) <= 1.0:
            raise InputError(f"audio_perturbation: probability must be between 0 and 1, got {probability!r}")
        self.probability = float(probability)
        if shutil.which("sox") is None:
            raise InputError(INSTALL_HINT)

    def draw(self, rng: random.Random) -> Dict[str, float]:
        """The settings of one utterance: {} when it is left unchanged."""
        if rng.random() >= self.probability:
            return {}
        return {
            "speed": round(rng.uniform(*self.speed), 4),
            "pitch": round(rng.uniform(*self.pitch), 1),
            "gain_db": round(rng.uniform(*self.gain_db), 2),
        }

    def apply(self, waveform: numpy.ndarray, sample_rate: int, settings: Dict[str, float]) -> numpy.ndarray:
        """`waveform` (float32 mono) perturbed with `settings` (from `draw`), at the same rate."""
        if not settings or waveform.size == 0:
            return waveform
        source = io.BytesIO()
        soundfile.write(source, waveform, sample_rate, format="WAV", subtype="FLOAT")
        command = ["sox", "-t", "wav", "-", "-t", "wav", "-e", "floating-point", "-b", "32", "-",
                   "speed", str(settings["speed"]), "pitch", str(settings["pitch"]), "gain", str(settings["gain_db"]),
                   "rate", str(sample_rate)]
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
        return numpy.clip(perturbed.reshape(-1), -1.0, 1.0).astype(numpy.float32, copy=False)
