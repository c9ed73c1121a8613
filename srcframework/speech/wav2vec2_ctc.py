import itertools
from typing import List, Optional

import numpy
import torch

from srcframework.common.audio import resample, to_mono_float32
from srcframework.common.conv_frames import min_samples
from srcframework.common.errors import InputError
from srcframework.speech.engines import SpeechRecognizer


@SpeechRecognizer.register("wav2vec2_ctc")
class Wav2Vec2CtcRecognizer(SpeechRecognizer):
    """
    Speech to text with a CTC-fine-tuned wav2vec 2.0 model of `transformers` (`Wav2Vec2ForCTC`
    with its `Wav2Vec2Processor`: feature extractor + `Wav2Vec2CTCTokenizer`). Waveforms are
    downmixed and resampled to the feature extractor's rate, padded into batches and decoded
    greedily (argmax per frame, repeats collapsed, blanks dropped). Transcripts are lowercase.

    The attention mask is passed when the feature extractor returns one (`return_attention_mask`,
    set for layer-norm models such as wav2vec2-large-960h-lv60-self); group-norm models (such as
    wav2vec2-base-960h) are meant to get zero-padded input without a mask, and then a transcript
    can depend slightly on the other waveforms of its batch.

    # Parameters

    model_name_or_path : `str`
        A local folder written by `save_pretrained` or a Hugging Face hub name (which needs network
        access or the hub cache).
    batch_size : `int`, optional (default = `8`)
        Waveforms per forward pass.
    device : `str`, optional (default = `"cpu"`)
    """

    def __init__(self, model_name_or_path: str, batch_size: int = 8, device: str = "cpu") -> None:
        from transformers import Wav2Vec2ForCTC, Wav2Vec2Processor

        if batch_size < 1:
            raise InputError(f"wav2vec2_ctc: batch_size must be at least 1, got {batch_size}")
        self.model_name_or_path = model_name_or_path
        self.batch_size = batch_size
        self.device = device
        self.processor = Wav2Vec2Processor.from_pretrained(model_name_or_path)
        self.model = Wav2Vec2ForCTC.from_pretrained(model_name_or_path).to(device).eval()
        self.sample_rate = self.processor.feature_extractor.sampling_rate
        # The shortest input that gives one frame; shorter waveforms are padded with silence.
        self.min_samples = min_samples(self.model.config.conv_kernel, self.model.config.conv_stride)

    def transcribe(self, waveforms: List[numpy.ndarray], sample_rate: int) -> List[str]:
        audio = [resample(to_mono_float32(w), sample_rate, self.sample_rate) for w in waveforms]
        transcripts: List[str] = []
        for start in range(0, len(audio), self.batch_size):
            transcripts.extend(self._transcribe_batch(audio[start : start + self.batch_size]))
        return transcripts

    def _transcribe_batch(self, audio: List[numpy.ndarray]) -> List[str]:
        spoken = [i for i, a in enumerate(audio) if a.size > 0]
        transcripts = [""] * len(audio)
        if not spoken:
            return transcripts
        audio = [audio[i] for i in spoken]
        audio = [numpy.pad(a, (0, max(0, self.min_samples - a.size))) for a in audio]
        inputs = self.processor(audio, sampling_rate=self.sample_rate, padding=True, return_tensors="pt")
        arguments = {"input_values": inputs.input_values.to(self.device)}
        if "attention_mask" in inputs:
            arguments["attention_mask"] = inputs.attention_mask.to(self.device)
        with torch.inference_mode():
            logits = self.model(**arguments).logits
        frames = self.model._get_feat_extract_output_lengths(torch.tensor([a.size for a in audio])).tolist()
        for i, transcript in zip(spoken, self.decode(logits, frames)):
            transcripts[i] = transcript
        return transcripts

    def decode(self, logits: torch.Tensor, frames: Optional[List[int]] = None) -> List[str]:
        """
        Greedy CTC decoding of `(batch, frames, vocabulary)` logits into lowercase transcripts:
        the best token of each frame, repeats collapsed, then the blank (pad) token and the other
        special tokens (`<s>`, `</s>`, `<unk>`) dropped. `frames` (one per row) drops the frames
        computed from batch padding.
        """
        tokenizer = self.processor.tokenizer
        special = set(tokenizer.all_special_ids)
        best = torch.argmax(logits, dim=-1).cpu().tolist()
        frames = frames if frames is not None else [len(row) for row in best]
        transcripts = []
        for row, length in zip(best, frames):
            collapsed = [token for token, _ in itertools.groupby(row[:length])]
            kept = [token for token in collapsed if token not in special]
            text = tokenizer.decode(kept, group_tokens=False)
            transcripts.append(" ".join(text.lower().split()))
        return transcripts
