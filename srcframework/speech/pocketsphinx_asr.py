import os
from typing import Any, Dict, List, Optional

import numpy
from allennlp.common.checks import ConfigurationError

from srcframework.common.audio import float_to_int16, resample, to_mono_float32
from srcframework.speech.engines import EngineNotFound, SpeechRecognizer

INSTALL_HINT = "pocketsphinx is not installed: pip install 'pocketsphinx>=5'"
SAMPLE_RATE = 16000

# Named decoder setups. "default" is PocketSphinx's own three-pass search (tree search, flat
# lexicon rescoring, best path over the lattice). "fast" keeps only the tree search, scores the 2
# best Gaussians of each mixture (not 4) and keeps at most 3,000 active HMMs a frame (not
# 30,000); `benchmarks/pocketsphinx_presets.py` measures
# every candidate (speed and WER on the same XQuAD questions) and shows why this one was chosen.
PRESETS: Dict[str, Dict[str, Any]] = {
    "default": {},
    "fast": {"fwdflat": False, "bestpath": False, "topn": 2, "maxhmmpf": 3000},
}


def dict_copy(options: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ConfigurationError(f"pocketsphinx options must be a JSON object, got {options!r}")
    return {str(key): value for key, value in options.items()}


@SpeechRecognizer.register("pocketsphinx")
class PocketsphinxRecognizer(SpeechRecognizer):
    """
    Speech to text with CMU PocketSphinx 5 (PyPI `pocketsphinx`). Waveforms are downmixed,
    resampled to 16 kHz and decoded one utterance at a time by a single decoder per instance,
    created on first use (so instances pickle for multiprocessing). Cepstral mean normalisation is
    computed over each whole utterance (`cmn="batch"`), and every utterance is decoded from the
    decoder's freshly loaded state: a PocketSphinx decoder otherwise carries state from one
    utterance to the next (3 of 16 XQuAD questions changed their transcript with the history), and
    the transcript must not depend on which questions a worker happened to decode before. Where
    the system has `fork` (Linux, macOS) the decoder is loaded once and each utterance is decoded
    in a forked child, whose changes the parent never sees; elsewhere the decoder is re-initialised
    (its models read again from disk) before each utterance. Both give the same transcripts; the
    fork is about 1.7 times faster (`benchmarks/pocketsphinx_presets.py --pristine`).
    Transcripts are lowercase; "" when nothing is recognised.

    # Parameters

    hmm : `str`, optional
        Acoustic model folder. Default: the US-English model bundled with the package.
    lm : `str`, optional
        N-gram language model (ARPA or binary). Default: the bundled US-English model.
    dict : `str`, optional
        Pronunciation dictionary. Default: the bundled CMU dictionary.
    preset : `str`, optional (default = `"default"`)
        A named decoder setup from `PRESETS`: `"default"` (PocketSphinx's full three-pass search)
        or `"fast"` (tree search only, 2 Gaussians, at most 3,000 active HMMs a frame; for
        noising training splits: see docs/benchmarks.md for its speed and WER).
    options : `Dict[str, Any]`, optional
        Further PocketSphinx decoder options (e.g. `{"beam": 1e-30, "ds": 3}`); they override the
        preset's.
    """

    pristine = "fork"  # how each utterance gets a fresh decoder: "fork" or "reinit"

    def __init__(
        self,
        hmm: Optional[str] = None,
        lm: Optional[str] = None,
        dict: Optional[str] = None,
        preset: str = "default",
        options: Optional[Dict[str, Any]] = None,
    ) -> None:
        if preset not in PRESETS:
            raise ConfigurationError(f"unknown pocketsphinx preset {preset!r}; known: {', '.join(sorted(PRESETS))}")
        self.hmm = hmm
        self.lm = lm
        self.dict = dict
        self.preset = preset
        self.options = dict_copy(options)
        self._decoder = None
        try:
            import pocketsphinx  # noqa: F401
        except ImportError:
            raise EngineNotFound(INSTALL_HINT) from None

    def __getstate__(self):
        return {key: (None if key == "_decoder" else value) for key, value in self.__dict__.items()}

    def decoder(self):
        """The instance's `pocketsphinx.Decoder`, created on first use."""
        if self._decoder is None:
            from pocketsphinx import Decoder

            self._decoder = Decoder(samprate=SAMPLE_RATE, cmn="batch", **self.decoder_options())
        return self._decoder

    def decoder_options(self) -> Dict[str, Any]:
        """The options handed to `pocketsphinx.Decoder`: model paths, then the preset, then `options`."""
        options = {key: getattr(self, key) for key in ("hmm", "lm", "dict") if getattr(self, key) is not None}
        options.update(PRESETS[self.preset])
        options.update(self.options)
        return options

    def transcribe(self, waveforms: List[numpy.ndarray], sample_rate: int) -> List[str]:
        return [self.transcribe_one(waveform, sample_rate) for waveform in waveforms]

    def transcribe_one(self, waveform: numpy.ndarray, sample_rate: int) -> str:
        samples = float_to_int16(resample(to_mono_float32(waveform), sample_rate, SAMPLE_RATE))
        if samples.size == 0:
            return ""
        if hasattr(os, "fork") and self.pristine == "fork":
            return self.decode_in_child(samples)
        decoder = self.decoder()
        decoder.reinit()
        return decode(decoder, samples)

    def decode_in_child(self, samples: numpy.ndarray) -> str:
        """Decodes in a forked child, so the parent's decoder stays as loaded."""
        decoder = self.decoder()
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: decode, send the transcript, leave without cleanup handlers
            status = 0
            try:
                os.close(read_end)
                data = decode(decoder, samples).encode("utf-8")
                while data:
                    data = data[os.write(write_end, data):]
            except BaseException:
                status = 1
            finally:
                os._exit(status)
        os.close(write_end)
        chunks = []
        with os.fdopen(read_end, "rb") as pipe:
            for chunk in iter(lambda: pipe.read(65536), b""):
                chunks.append(chunk)
        _, status = os.waitpid(pid, 0)
        if status != 0:
            raise RuntimeError(f"pocketsphinx failed in its decoding process (wait status {status})")
        return b"".join(chunks).decode("utf-8")


def decode(decoder, samples: numpy.ndarray) -> str:
    """One utterance of 16 kHz int16 samples through `decoder`: its lowercase transcript."""
    decoder.start_utt()
    decoder.process_raw(samples.tobytes(), no_search=False, full_utt=True)
    decoder.end_utt()
    hypothesis = decoder.hyp()
    return hypothesis.hypstr.lower().strip() if hypothesis is not None else ""
