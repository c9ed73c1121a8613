import os
import shutil
import subprocess
import tempfile
from typing import List, Optional, Tuple

import numpy

from srcframework.common.audio import read_wav
from srcframework.common.errors import InputError
from srcframework.speech.engines import EngineNotFound, SpeechSynthesizer

INSTALL_HINT = (
    "festival is not installed: apt-get update && apt-get install -y festival "
    "festvox-kallpc16k festvox-kdlpc16k festvox-us-slt-hts"
)
EMPTY_RATE = 16000  # the rate reported with the empty waveform of text with nothing to say
DONE = "SRCFRAMEWORK-DONE"  # what the Festival process writes to stderr after each command

# `text2wave`'s synthesis as one Scheme function, for a Festival process that stays up: each text
# file is read in its text mode, split into utterances, synthesised and written as one RIFF WAV,
# as `text2wave -o OUT FILE` does (no resampling, volume 1).
TEXT2WAVE = """
(gc-status nil)
(defvar srcf_fp nil)
(defvar srcf_samples 0)
(defvar srcf_utt nil)
(define (srcf_save_wave utt)
  (if (eq? srcf_samples 0)
      (wave.save.header srcf_fp (utt.wave utt) 'riff nil (list (list "numsamples" 0))))
  (set! srcf_samples (+ srcf_samples (get_param 'num_samples (wave.info (utt.wave utt)) 0)))
  (wave.save.data.fp (utt.wave utt) srcf_fp 'riff nil)
  (set! srcf_utt utt))
(set! tts_hooks (list utt.synth srcf_save_wave))
(define (srcf_text2wave infile outfile)
  (set! srcf_fp (fopen outfile "wb"))
  (set! srcf_samples 0)
  (set! srcf_utt nil)
  (tts_file infile (tts_find_text_mode infile auto-text-mode-alist))
  (fseek srcf_fp 0 0)
  (wave.save.header srcf_fp (utt.wave srcf_utt) 'riff nil (list (list "numsamples" srcf_samples)))
  (fclose srcf_fp))
"""


def festival_voices(program: str = "festival") -> List[str]:
    """The voices Festival lists (`(voice.list)`), e.g. kal_diphone, ked_diphone, cmu_us_slt_arctic_hts."""
    output = subprocess.run([program, "-b", "(print (voice.list))"], capture_output=True, text=True, check=True).stdout
    return output.strip().strip("()").split()


@SpeechSynthesizer.register("festival")
class FestivalSynthesizer(SpeechSynthesizer):
    """
    Text to speech with the Festival Speech Synthesis System: what `text2wave -eval
    '(voice_VOICE)'` makes of the text, from one Festival process that stays up (started on first
    use, in each worker process), so that the voice is loaded once rather than for every question
    (about 0.05 s a question instead of 1.5 s). Deterministic: the same text always gives the same
    waveform, that of `text2wave`. The
    Debian voices are diphone voices at 16 kHz (kal_diphone from festvox-kallpc16k, US male;
    ked_diphone from festvox-kdlpc16k, US male) and an HTS voice at 32 kHz
    (cmu_us_slt_arctic_hts from festvox-us-slt-hts, US female). Text with nothing to say gives an
    empty waveform.

    # Parameters

    voice : `str`, optional (default = `"kal_diphone"`)
        A voice `(voice.list)` lists; an unknown one raises an `InputError` (a `ValueError`)
        naming the installed ones.
    """

    def __init__(self, voice: str = "kal_diphone") -> None:
        self.voice = voice
        program = shutil.which("festival")
        if program is None:
            raise EngineNotFound(INSTALL_HINT)
        voices = festival_voices(program)
        if voice not in voices:
            raise InputError(f"unknown festival voice {voice!r}; installed: {', '.join(voices) or 'none'} ({INSTALL_HINT.split(': ', 1)[1]})")
        self._process: Optional[subprocess.Popen] = None
        self._owner = 0  # the pid that started the process: a forked worker starts its own

    def __getstate__(self):
        return {key: (None if key == "_process" else value) for key, value in self.__dict__.items()}

    def __del__(self):
        try:
            self.close()
        except Exception:  # at interpreter exit the modules close needs may be gone; the process ends with us
            pass

    def close(self) -> None:
        """Stops the Festival process (it ends at the end of its input)."""
        process, self._process = getattr(self, "_process", None), None
        if process is not None and self._owner == os.getpid():
            try:
                process.stdin.close()
                process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                process.kill()

    def command(self, expression: str) -> List[str]:
        """Evaluates a Scheme expression in the Festival process (starting it, with the voice, when
        there is none) and returns what Festival wrote to stderr meanwhile (its messages)."""
        if self._process is None or self._owner != os.getpid() or self._process.poll() is not None:
            try:
                self._process = subprocess.Popen(
                    ["festival", "--pipe"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1,
                )
            except FileNotFoundError:
                raise EngineNotFound(INSTALL_HINT) from None
            self._owner = os.getpid()
            self.command(TEXT2WAVE + f"(voice_{self.voice})")
        self._process.stdin.write(f'{expression}\n(format stderr "{DONE}\\n")\n')
        self._process.stdin.flush()
        messages = []
        for line in self._process.stderr:
            if line.strip() == DONE:
                return messages
            messages.append(line.rstrip("\n"))
        self._process = None
        raise RuntimeError(f"festival stopped: {' '.join(messages)[-300:]}")

    def synthesize(self, text: str) -> Tuple[numpy.ndarray, int]:
        if not any(character.isalnum() for character in text):  # festival crashes on nothing to say
            return numpy.zeros(0, dtype=numpy.float32), EMPTY_RATE
        with tempfile.TemporaryDirectory(prefix="festival-") as folder:
            source, path = os.path.join(folder, "text.txt"), os.path.join(folder, "speech.wav")
            with open(source, "w", encoding="utf-8") as handle:
                handle.write(text)
            messages = self.command(f'(srcf_text2wave "{source}" "{path}")')
            if not os.path.isfile(path) or os.path.getsize(path) == 0:
                raise RuntimeError(f"festival failed on {text!r}: {' '.join(messages)[-300:]}")
            return read_wav(path, allow_empty=True)
