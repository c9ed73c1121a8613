import math
from typing import Tuple

import torch
from allennlp.common.checks import ConfigurationError

from srcframework.modules.field_encoders.checkpoints import load_speecht5_encoder, pretrained_config
from srcframework.modules.field_encoders.ctc_layer import ctc_layer, ctc_loss
from srcframework.modules.field_encoders.field_encoder import FieldEncoder
from srcframework.modules.field_encoders.pretrained_audio import PretrainedAudioEncoder


@FieldEncoder.register("speecht5")
class SpeechT5AudioEncoder(PretrainedAudioEncoder):
    """
    Encodes an `AudioField` batch (`{"waveform": B x T, "mask": B x T}`, 16 kHz, each utterance
    normalised to zero mean and unit variance) with the speech encoder of a pretrained SpeechT5
    (`SpeechT5EncoderWithSpeechPrenet`: a convolutional feature encoder that downsamples the
    waveform 320 times, i.e. a frame every 20 ms, then the transformer encoder), projected to
    `output_dim`. Returns `B x L x output_dim` and the `B x L` frame mask, whose lengths follow
    the convolution stack's own length formula.

    The encoder weights are read from any SpeechT5 checkpoint (e.g. microsoft/speecht5_asr,
    saved as SpeechT5ForSpeechToText, whose keys start with `speecht5.encoder.`).

    Padding does not change an utterance's encodings: the convolutions give each utterance the
    frames it gives alone (their group normalisation counts each utterance's own frames, where it
    would otherwise count the padding; `PretrainedAudioEncoder`), padded frames
    are zeroed before the positional convolution, and the transformer gets the frame mask. So an
    utterance encodes the same in any batch, up to float rounding. (Calling the prenet on the
    padded batch, as `SpeechT5EncoderWithSpeechPrenet.forward` does, lets the padding leak into
    the real frames through both.) An utterance shorter than one frame's receptive field (400
    samples for the real models) is padded with silence to one frame.

    # Parameters

    model_name : `str`
        A folder written by `save_pretrained` or a hub name, such as `"microsoft/speecht5_asr"`.
    freeze_feature_encoder : `bool`, optional (default = `False`)
        Keep only the convolutional feature encoder fixed.
    ctc_weight : `float`, optional (default = `0.0`)
        Above 0: the encoder also carries a CTC output layer over the characters of the
        `speecht5_ctc` recogniser (`ctc_layer`; the recogniser's own layer where `model_name` is a
        folder written by `save_speecht5_ctc`, which holds it, else a fresh one) on its encodings
        (before the dropout and the projection), and its CTC loss against the question's
        characters (the `squad_src` reader's `ctc_targets`), times this weight, joins the span
        model's loss (`forward_with_auxiliary_loss`), so that the speech encoder keeps the words
        while the span loss trains it. 0: no layer, nothing changes. Needs `freeze: false`.
    **kwargs
        `output_dim`, `freeze`, `num_layers`, `dropout` and `load_weights`, as `PretrainedFieldEncoder` takes them.
    """

    def __init__(self, model_name: str, *, freeze_feature_encoder: bool = False, ctc_weight: float = 0.0, **kwargs) -> None:
        if isinstance(ctc_weight, bool) or not isinstance(ctc_weight, (int, float)) or not 0 <= ctc_weight < math.inf:
            raise ConfigurationError(f"speecht5: ctc_weight must be a number of at least 0, got {ctc_weight!r}")
        if ctc_weight > 0 and kwargs.get("freeze", False):
            raise ConfigurationError("speecht5: ctc_weight above 0 trains the speech encoder, so it needs freeze: false")
        super().__init__(model_name, freeze_feature_encoder, **kwargs)
        self.ctc_weight = float(ctc_weight)
        if ctc_weight > 0:
            self.ctc_layer = ctc_layer(model_name, self.model.config.hidden_size, kwargs.get("load_weights", True))
            self.auxiliary_loss_name = "ctc_loss"
            self.auxiliary_loss_weight = self.ctc_weight

    @classmethod
    def build_model(cls, model_name: str) -> torch.nn.Module:
        from transformers.models.speecht5.modeling_speecht5 import SpeechT5EncoderWithSpeechPrenet

        return SpeechT5EncoderWithSpeechPrenet(pretrained_config(model_name, "speecht5"))

    @staticmethod
    def load_model(model_name: str) -> torch.nn.Module:
        from transformers.models.speecht5.modeling_speecht5 import SpeechT5EncoderWithSpeechPrenet

        return load_speecht5_encoder(
            SpeechT5EncoderWithSpeechPrenet, model_name, "prenet.feature_encoder.conv_layers.0.conv.weight"
        )

    @staticmethod
    def transformer(model: torch.nn.Module) -> torch.nn.Module:
        return model.wrapped_encoder

    def front_end(self) -> torch.nn.Module:
        return self.model.prenet

    def feature_encoder(self) -> torch.nn.Module:
        return self.model.prenet.feature_encoder

    def encode_frames(self, hidden: torch.Tensor, mask: torch.BoolTensor) -> torch.Tensor:
        prenet = self.model.prenet
        hidden = hidden * mask.unsqueeze(-1)
        hidden = hidden + prenet.pos_conv_embed(hidden)
        hidden = hidden + prenet.pos_sinusoidal_embed((~mask).long())
        return self.model.wrapped_encoder(hidden_states=hidden, attention_mask=mask.long()).last_hidden_state

    def forward_with_auxiliary_loss(  # type: ignore
        self, field_tensors, targets: torch.Tensor
    ) -> Tuple[torch.Tensor, torch.BoolTensor, torch.Tensor]:
        """`forward`'s encodings and mask, and the CTC loss of the same encodings against
        `targets` (`B x S` character ids padded with -1: the reader's `question_targets`)."""
        if self.ctc_weight == 0:
            return super().forward_with_auxiliary_loss(field_tensors, targets)
        encoded, mask = self.encode_pretrained(field_tensors)
        return self.project(encoded), mask, self.auxiliary_loss(encoded, mask, targets)

    def auxiliary_loss(self, encoded: torch.Tensor, mask: torch.BoolTensor, targets: torch.Tensor) -> torch.Tensor:
        """The CTC loss of the speech encoder's `B x L x hidden` encodings (`mask`: their frames)
        against `targets` (`ctc_layer.ctc_loss`)."""
        return ctc_loss(self.ctc_layer(encoded), mask, targets)
