from typing import List, Optional

import numpy
import torch

from srcframework.common.audio import resample, to_mono_float32
from srcframework.common.errors import InputError
from srcframework.speech.ctc_decoder import CtcDecoder, GreedyCtcDecoder
from srcframework.speech.engines import SpeechRecognizer
from srcframework.speech.speecht5_ctc_network import SpeechT5CtcNetwork, pad_rows

SAMPLE_RATE = 16000


@SpeechRecognizer.register("speecht5_ctc")
class SpeechT5CtcRecognizer(SpeechRecognizer):
    """
    Speech to text with a character CTC SpeechT5 encoder saved by the `speecht5_ctc` model
    (`save_encoder`, or its `save_speecht5_ctc` training callback), decoded by a `CtcDecoder`:
    greedy by default (the best character per frame, repeats collapsed, blanks dropped), or
    `lexicon_beam` with a word language model. Waveforms are downmixed,
    resampled to 16 kHz and scaled to zero mean and unit variance, as the `waveform` audio
    indexer prepares the model's training audio. Waveforms are batched by length; each is
    encoded over its own samples only, so a transcript does not depend on its batch. An empty
    waveform gives an empty transcript. Transcripts hold lowercase letters, digits, apostrophes
    and single spaces.

    # Parameters

    model_name : `str`
        A folder written by `SpeechT5CtcModel.save_encoder`.
    batch_size : `int`, optional (default = `8`)
        Waveforms per forward pass.
    device : `str`, optional (default = `"cpu"`)
    decoder : `CtcDecoder`, optional (default = `greedy`)
        Turns each utterance's character log-probabilities into its transcript.
    """

    def __init__(self, model_name: str, batch_size: int = 8, device: str = "cpu", decoder: Optional[CtcDecoder] = None) -> None:
        if batch_size < 1:
            raise InputError(f"speecht5_ctc: batch_size must be at least 1, got {batch_size}")
        self.model_name = model_name
        self.batch_size = batch_size
        self.device = device
        self.decoder = decoder or GreedyCtcDecoder()
        self.network = SpeechT5CtcNetwork.from_pretrained(model_name).to(device).eval()

    def transcribe(self, waveforms: List[numpy.ndarray], sample_rate: int) -> List[str]:
        return self.decoder.decode(self.log_probs(waveforms, sample_rate), self.network.characters)

    def log_probs(self, waveforms: List[numpy.ndarray], sample_rate: int) -> List[torch.Tensor]:
        """Each waveform's `frames x characters` CTC log-probabilities (`0 x characters` for an empty one)."""
        audio = [resample(to_mono_float32(w), sample_rate, SAMPLE_RATE) for w in waveforms]
        scores = [torch.zeros(0, len(self.network.characters))] * len(audio)
        spoken = sorted((i for i, a in enumerate(audio) if a.size > 0), key=lambda i: audio[i].size)
        for start in range(0, len(spoken), self.batch_size):
            batch = spoken[start : start + self.batch_size]
            for i, rows in zip(batch, self._log_probs_batch([audio[i] for i in batch])):
                scores[i] = rows
        return scores

    def _log_probs_batch(self, audio: List[numpy.ndarray]) -> List[torch.Tensor]:
        rows = [torch.from_numpy((a - a.mean()) / numpy.sqrt(a.var() + 1e-7)).float() for a in audio]
        waveform, lengths = pad_rows(rows)
        with torch.inference_mode():
            logits, mask = self.network(waveform.to(self.device), lengths.to(self.device))
            log_probs = torch.log_softmax(logits.float(), dim=-1).cpu()
        frames = mask.sum(-1).tolist()
        return [row[:length] for row, length in zip(log_probs, frames)]
