from typing import List

import numpy
import torch

from srcframework.common.audio import resample, to_mono_float32
from srcframework.common.errors import InputError
from srcframework.speech.engines import SpeechRecognizer
from srcframework.speech.speecht5_ctc_network import SpeechT5CtcNetwork, pad_rows

SAMPLE_RATE = 16000


@SpeechRecognizer.register("speecht5_ctc")
class SpeechT5CtcRecognizer(SpeechRecognizer):
    """
    Speech to text with a character CTC SpeechT5 encoder saved by the `speecht5_ctc` model
    (`save_encoder`, or its `save_speecht5_ctc` training callback): batched greedy CTC decoding
    (the best character per frame, repeats collapsed, blanks dropped). Waveforms are downmixed,
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
    """

    def __init__(self, model_name: str, batch_size: int = 8, device: str = "cpu") -> None:
        if batch_size < 1:
            raise InputError(f"speecht5_ctc: batch_size must be at least 1, got {batch_size}")
        self.model_name = model_name
        self.batch_size = batch_size
        self.device = device
        self.network = SpeechT5CtcNetwork.from_pretrained(model_name).to(device).eval()

    def transcribe(self, waveforms: List[numpy.ndarray], sample_rate: int) -> List[str]:
        audio = [resample(to_mono_float32(w), sample_rate, SAMPLE_RATE) for w in waveforms]
        transcripts = [""] * len(audio)
        spoken = sorted((i for i, a in enumerate(audio) if a.size > 0), key=lambda i: audio[i].size)
        for start in range(0, len(spoken), self.batch_size):
            batch = spoken[start : start + self.batch_size]
            for i, text in zip(batch, self._transcribe_batch([audio[i] for i in batch])):
                transcripts[i] = text
        return transcripts

    def _transcribe_batch(self, audio: List[numpy.ndarray]) -> List[str]:
        rows = [torch.from_numpy((a - a.mean()) / numpy.sqrt(a.var() + 1e-7)).float() for a in audio]
        waveform, lengths = pad_rows(rows)
        with torch.inference_mode():
            logits, mask = self.network(waveform.to(self.device), lengths.to(self.device))
        return self.network.greedy_decode(logits, mask)
