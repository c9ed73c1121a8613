import logging
from typing import Dict, Optional, Tuple

import torch
from allennlp.common.checks import ConfigurationError
from allennlp.nn.util import get_mask_from_sequence_lengths

from srcframework.modules.field_encoders.field_encoder import FieldEncoder
from srcframework.modules.field_encoders.speecht5 import (
    PretrainedFieldEncoder,
    audio_lengths,
    convolve_per_utterance,
    min_samples,
    pretrained_config,
    truncate_layers,
)

logger = logging.getLogger(__name__)


@FieldEncoder.register("wav2vec2")
class Wav2Vec2AudioEncoder(PretrainedFieldEncoder):
    """
    Encodes an `AudioField` batch (`{"waveform": B x T, "mask": B x T}`, 16 kHz, each utterance
    normalised to zero mean and unit variance) with a pretrained wav2vec 2.0 (`Wav2Vec2Model`:
    convolutional feature encoder downsampling 320 times, then the transformer), projected to
    `output_dim`. Returns `B x L x output_dim` and the `B x L` frame mask, whose lengths follow
    the model's own length formula.

    Any wav2vec2 checkpoint loads (`Wav2Vec2Model`, `Wav2Vec2ForCTC`, `Wav2Vec2ForPreTraining`:
    `transformers` strips their `wav2vec2.` prefix); missing encoder weights are an error.

    Padding does not change an utterance's encodings (up to float rounding): the convolutions
    run on each utterance's samples alone, so the group normalisation of wav2vec2-base-style
    models does not count the padding, and the transformer gets the frame mask (it zeroes padded
    frames before its positional convolution). An utterance shorter than one frame's receptive
    field (400 samples for the real models) is padded with silence to one frame.

    # Parameters

    model_name : `str`
        A folder written by `save_pretrained` or a hub name, such as `"facebook/wav2vec2-base"`.
    output_dim : `int`, optional (default = the model's hidden size, no projection)
        Width of a linear projection of the encodings (the span head's input size).
    freeze : `bool`, optional (default = `False`)
        Keep the pretrained weights fixed (and the pretrained model in eval mode, run without
        gradients); the projection still trains.
    freeze_feature_encoder : `bool`, optional (default = `True`)
        Keep the convolutional feature encoder fixed (the usual setting for fine-tuning).
    num_layers : `int`, optional (default = all)
        Keep only the first `num_layers` transformer layers.
    dropout : `float`, optional (default = `0.0`)
        Dropout on the pretrained encodings, before the projection.
    """

    def __init__(
        self,
        model_name: str,
        output_dim: Optional[int] = None,
        freeze: bool = False,
        freeze_feature_encoder: bool = True,
        num_layers: Optional[int] = None,
        dropout: float = 0.0,
    ) -> None:
        from transformers import Wav2Vec2Model

        config = pretrained_config(model_name, "wav2vec2")
        if config.add_adapter:
            raise ConfigurationError(f"{model_name!r}: wav2vec2 models with an adapter are not supported")
        model, info = Wav2Vec2Model.from_pretrained(model_name, config=config, output_loading_info=True)
        self._check_loaded(model_name, model, info)
        model.encoder.layers = truncate_layers(model.encoder.layers, num_layers)
        if freeze_feature_encoder:
            model.freeze_feature_encoder()
        super().__init__(model, output_dim, freeze, dropout)
        self.model_name = model_name
        self.min_samples = min_samples(config.conv_kernel, config.conv_stride)

    @staticmethod
    def _check_loaded(model_name: str, model, info) -> None:
        # Old checkpoints store the positional convolution as weight_g / weight_v: torch loads them
        # into the weight-norm parametrization, but transformers still lists both names.
        unexpected = set(info["unexpected_keys"])
        buffers = {name for name, _ in model.named_buffers()}
        missing = []
        for key in info["missing_keys"]:
            legacy = key.replace(".parametrizations.weight.original0", ".weight_g").replace(
                ".parametrizations.weight.original1", ".weight_v"
            )
            if key in buffers or (legacy != key and ({legacy, "wav2vec2." + legacy} & unexpected)):
                continue
            missing.append(key)
        if missing == ["masked_spec_embed"]:
            logger.warning("%s: no masked_spec_embed in the checkpoint; SpecAugment masks with a random vector", model_name)
        elif missing or info["mismatched_keys"]:
            raise ConfigurationError(
                f"{model_name!r}: the checkpoint does not hold every Wav2Vec2Model weight: missing {missing}, "
                f"mismatched {info['mismatched_keys']}"
            )

    def output_lengths(self, lengths: torch.Tensor) -> torch.Tensor:
        """Frames per utterance of `lengths` samples (one at least)."""
        return self.model._get_feat_extract_output_lengths(lengths).clamp(min=1)

    def encode(self, field_tensors: Dict[str, torch.Tensor]) -> Tuple[torch.Tensor, torch.BoolTensor]:
        waveform, lengths = audio_lengths(field_tensors)
        features = convolve_per_utterance(self.model.feature_extractor, waveform, lengths, self.min_samples)
        mask = get_mask_from_sequence_lengths(self.output_lengths(lengths), features.size(1))
        hidden, _ = self.model.feature_projection(features)
        hidden = self.model._mask_hidden_states(hidden, attention_mask=mask.long())
        encoded = self.model.encoder(hidden, attention_mask=mask).last_hidden_state
        return encoded, mask
