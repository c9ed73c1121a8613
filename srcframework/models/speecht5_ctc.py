import logging
import random
from typing import Any, Dict, List, Optional, Tuple

import torch
import torchaudio
from allennlp.common.checks import ConfigurationError
from allennlp.data import Vocabulary
from allennlp.models import Model
from allennlp.nn import InitializerApplicator

from srcframework.metrics.text_noise import word_and_character_errors
from srcframework.speech.speecht5_ctc_network import SpeechT5CtcNetwork, normalize_transcript, pad_rows

logger = logging.getLogger(__name__)

SAMPLE_RATE = 16000


@Model.register("speecht5_ctc")
class SpeechT5CtcModel(Model):
    """
    Pretrains a small SpeechT5 speech encoder (`SpeechT5EncoderWithSpeechPrenet`, built from the
    `encoder` config, randomly initialised) with a linear CTC layer over characters (blank, space,
    apostrophe, a-z, 0-9) on spoken questions: the `squad_src` reader's `question` AudioField is
    the input, and the typed question of its metadata (`metadata["question"]`), normalised to
    the character vocabulary, is the target. The reader's other fields (context, span) are
    ignored.

    While training, each utterance is speed-perturbed (resampled by a random factor drawn from
    `speed_perturbation`, in steps of 0.01, so a factor of 1.1 makes it 10% shorter and higher)
    and scaled by a random gain drawn from `volume_perturbation_db` (the waveform indexer has
    already scaled it to unit variance; the gain is not undone). Nothing is perturbed in
    evaluation.

    Metrics: `ctc_loss` (mean over batches), and in evaluation the greedy-decoding `cer` and `wer`
    against the normalised typed questions (jiwer; questions that normalise to nothing are left
    out). `save_encoder(folder)` writes the folder that the `speecht5` question encoder
    (`model_name`) and the `speecht5_ctc` recognizer load.

    # Parameters

    vocab : `Vocabulary`
        Unused (the characters are fixed); AllenNLP passes it.
    encoder : `Dict[str, Any]`
        Keyword arguments of `transformers.SpeechT5Config` for the speech encoder: e.g.
        `hidden_size`, `encoder_layers`, `encoder_attention_heads`, `encoder_ffn_dim`, `conv_dim`,
        `conv_kernel`, `conv_stride`, `num_conv_pos_embeddings`, `num_conv_pos_embedding_groups`,
        `feat_extract_norm`, dropouts, `apply_spec_augment`, `mask_time_prob`.
    speed_perturbation : `Tuple[float, float]`, optional (default = `(0.9, 1.1)`)
        Range of the speed factor; `null` for none.
    volume_perturbation_db : `Tuple[float, float]`, optional (default = `(-6.0, 6.0)`)
        Range of the gain in decibels; `null` for none.
    seed : `int`, optional (default = `None`)
        Seeds the perturbation draws (a `random.Random` of the model's own).
    initializer : `InitializerApplicator`, optional
        Applied once the model is built: e.g. `{"regexes": [[".*", {"type": "pretrained",
        "weights_file_path": "runs/speecht5_ctc/best.th"}]]}` continues a trained recogniser.
    """

    def __init__(
        self,
        vocab: Vocabulary,
        encoder: Dict[str, Any],
        speed_perturbation: Optional[Tuple[float, float]] = (0.9, 1.1),
        volume_perturbation_db: Optional[Tuple[float, float]] = (-6.0, 6.0),
        seed: Optional[int] = None,
        initializer: Optional[InitializerApplicator] = None,
        **kwargs,
    ) -> None:
        super().__init__(vocab, **kwargs)
        for name, bounds in (("speed_perturbation", speed_perturbation), ("volume_perturbation_db", volume_perturbation_db)):
            if bounds is not None and (len(bounds) != 2 or bounds[0] > bounds[1]):
                raise ConfigurationError(f"{name} must be [low, high] with low <= high, got {bounds!r}")
        if speed_perturbation is not None and speed_perturbation[0] <= 0:
            raise ConfigurationError(f"speed factors must be positive, got {speed_perturbation!r}")
        self.network = SpeechT5CtcNetwork.from_config(dict(encoder))
        self.speed_perturbation = tuple(speed_perturbation) if speed_perturbation is not None else None
        self.volume_perturbation_db = tuple(volume_perturbation_db) if volume_perturbation_db is not None else None
        self._random = random.Random(seed)
        self._loss_sum, self._batches = 0.0, 0
        self._errors = [0, 0, 0, 0]  # word errors, reference words, character errors, reference characters
        if initializer is not None:
            initializer(self)

    def perturb(self, row: torch.Tensor) -> torch.Tensor:
        """One utterance's samples, sped up or slowed down and scaled, as the class docstring says."""
        if self.speed_perturbation is not None:
            low, high = self.speed_perturbation
            factor = round(self._random.uniform(low, high), 2)
            if factor != 1.0 and row.numel() > 1:
                row = torchaudio.functional.resample(row, int(round(SAMPLE_RATE * factor)), SAMPLE_RATE)
        if self.volume_perturbation_db is not None:
            row = row * 10.0 ** (self._random.uniform(*self.volume_perturbation_db) / 20.0)
        return row

    def forward(  # type: ignore
        self, question: Dict[str, torch.Tensor], metadata: Optional[List[Dict[str, Any]]] = None, **kwargs
    ) -> Dict[str, Any]:
        waveform, mask = question["waveform"], question["mask"].bool()
        lengths = mask.sum(-1)
        if self.training and (self.speed_perturbation is not None or self.volume_perturbation_db is not None):
            rows = [self.perturb(row[:length]) for row, length in zip(waveform, lengths.tolist())]
            waveform, lengths = pad_rows(rows)
            waveform, lengths = waveform.to(mask.device), lengths.to(mask.device)
        logits, frame_mask = self.network(waveform, lengths)
        output: Dict[str, Any] = {"logits": logits, "mask": frame_mask}
        if metadata is None:
            return output
        references = [normalize_transcript(m.get("question") or "", self.network.characters) for m in metadata]
        targets, target_lengths = self.network.targets(references)
        log_probs = torch.log_softmax(logits.float(), dim=-1).transpose(0, 1)
        loss = torch.nn.functional.ctc_loss(
            log_probs,
            targets.to(logits.device),
            frame_mask.sum(-1),
            target_lengths.to(logits.device),
            blank=0,
            reduction="mean",
            zero_infinity=True,
        )
        output["loss"] = loss
        self._loss_sum += float(loss.detach())
        self._batches += 1
        if not self.training:
            transcripts = self.network.greedy_decode(logits, frame_mask)
            output["transcript"] = transcripts
            output["reference"] = references
            for i, value in enumerate(word_and_character_errors(references, transcripts)):
                self._errors[i] += value
        return output

    def make_output_human_readable(self, output_dict: Dict[str, Any]) -> Dict[str, Any]:
        if "transcript" not in output_dict:
            output_dict["transcript"] = self.network.greedy_decode(output_dict["logits"], output_dict["mask"])
        return output_dict

    def get_metrics(self, reset: bool = False) -> Dict[str, float]:
        metrics = {"ctc_loss": self._loss_sum / self._batches if self._batches else 0.0}
        word_errors, words, char_errors, chars = self._errors
        if words:
            metrics["wer"] = word_errors / words
        if chars:
            metrics["cer"] = char_errors / chars
        if reset:
            self._loss_sum, self._batches = 0.0, 0
            self._errors = [0, 0, 0, 0]
        return metrics

    def save_encoder(self, folder: str) -> str:
        """
        Writes the SpeechT5 encoder (`save_pretrained`: config.json + model.safetensors), the CTC
        layer and the character vocabulary into `folder`: the `speecht5` question encoder loads it
        through `model_name` like any SpeechT5 checkpoint, and the `speecht5_ctc` recognizer
        transcribes with it. Returns the folder.
        """
        self.network.save_pretrained(folder)
        logger.info("wrote the speecht5_ctc encoder to %s", folder)
        return folder
