from typing import List

import torch

from srcframework.common.errors import InputError
from srcframework.speech.engines import Translator


@Translator.register("marian")
class MarianTranslator(Translator):
    """
    Neural machine translation with a Marian model of `transformers` (`MarianMTModel` and
    `MarianTokenizer`, e.g. the Helsinki-NLP opus-mt models). Deterministic: greedy search or beam
    search, no sampling. Texts are translated in batches, padded, in their given order.

    # Parameters

    model_name_or_path : `str`
        A local folder written by `save_pretrained` or a Hugging Face hub name (which needs network
        access or the hub cache).
    batch_size : `int`, optional (default = `16`)
    max_length : `int`, optional (default = `256`)
        Longest input (longer texts are truncated) and longest translation, in subword tokens.
    num_beams : `int`, optional (default = `1`)
        1 is greedy search.
    device : `str`, optional (default = `"cpu"`)
    """

    def __init__(
        self,
        model_name_or_path: str,
        batch_size: int = 16,
        max_length: int = 256,
        num_beams: int = 1,
        device: str = "cpu",
    ) -> None:
        from transformers import MarianMTModel, MarianTokenizer

        if batch_size < 1 or max_length < 1 or num_beams < 1:
            raise InputError("marian: batch_size, max_length and num_beams must be at least 1")
        self.model_name_or_path = model_name_or_path
        self.batch_size = batch_size
        self.max_length = max_length
        self.num_beams = num_beams
        self.device = device
        self.tokenizer = MarianTokenizer.from_pretrained(model_name_or_path)
        self.model = MarianMTModel.from_pretrained(model_name_or_path).to(device).eval()

    def translate(self, texts: List[str]) -> List[str]:
        translations: List[str] = []
        for start in range(0, len(texts), self.batch_size):
            batch = [" ".join(text.split()) for text in texts[start : start + self.batch_size]]
            inputs = self.tokenizer(
                batch, return_tensors="pt", padding=True, truncation=True, max_length=self.max_length
            ).to(self.device)
            with torch.inference_mode():
                outputs = self.model.generate(
                    **inputs, max_length=self.max_length, num_beams=self.num_beams, do_sample=False
                )
            translations.extend(text.strip() for text in self.tokenizer.batch_decode(outputs, skip_special_tokens=True))
        return translations
