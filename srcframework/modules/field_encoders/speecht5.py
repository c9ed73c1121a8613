import torch

from srcframework.modules.field_encoders.checkpoints import load_speecht5_encoder, pretrained_config
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
    **kwargs
        `output_dim`, `freeze`, `num_layers`, `dropout` and `load_weights`, as `PretrainedFieldEncoder` takes them.
    """

    def __init__(self, model_name: str, *, freeze_feature_encoder: bool = False, **kwargs) -> None:
        super().__init__(model_name, freeze_feature_encoder, **kwargs)

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
