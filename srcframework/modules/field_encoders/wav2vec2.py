import logging

import torch
from allennlp.common.checks import ConfigurationError

from srcframework.modules.field_encoders.checkpoints import legacy_weight_norm_name, pretrained_config
from srcframework.modules.field_encoders.field_encoder import FieldEncoder
from srcframework.modules.field_encoders.pretrained_audio import PretrainedAudioEncoder

logger = logging.getLogger(__name__)


@FieldEncoder.register("wav2vec2")
class Wav2Vec2AudioEncoder(PretrainedAudioEncoder):
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
    freeze_feature_encoder : `bool`, optional (default = `True`)
        Keep the convolutional feature encoder fixed (the usual setting for fine-tuning).
    **kwargs
        `output_dim`, `freeze`, `num_layers`, `dropout` and `load_weights`, as `PretrainedFieldEncoder` takes them.
    """

    def __init__(self, model_name: str, *, freeze_feature_encoder: bool = True, **kwargs) -> None:
        super().__init__(model_name, freeze_feature_encoder, **kwargs)

    @classmethod
    def build_model(cls, model_name: str) -> torch.nn.Module:
        from transformers import Wav2Vec2Model

        return Wav2Vec2Model(cls._config(model_name))

    @staticmethod
    def _config(model_name: str):
        config = pretrained_config(model_name, "wav2vec2")
        if config.add_adapter:
            raise ConfigurationError(f"{model_name!r}: wav2vec2 models with an adapter are not supported")
        return config

    @classmethod
    def load_model(cls, model_name: str) -> torch.nn.Module:
        from transformers import Wav2Vec2Model

        config = cls._config(model_name)
        model, info = Wav2Vec2Model.from_pretrained(model_name, config=config, output_loading_info=True)
        # Old checkpoints store the positional convolution as weight_g / weight_v: torch loads them
        # into the weight-norm parametrization, but transformers still lists both names.
        unexpected = set(info["unexpected_keys"])
        buffers = {name for name, _ in model.named_buffers()}
        missing = []
        for key in info["missing_keys"]:
            legacy = legacy_weight_norm_name(key)
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
        return model

    @staticmethod
    def transformer(model: torch.nn.Module) -> torch.nn.Module:
        return model.encoder

    def front_end(self) -> torch.nn.Module:
        return self.model

    def feature_encoder(self) -> torch.nn.Module:
        return self.model.feature_extractor

    def encode_frames(self, hidden: torch.Tensor, mask: torch.BoolTensor) -> torch.Tensor:
        return self.model.encoder(hidden, attention_mask=mask).last_hidden_state
