from typing import Dict, Tuple

import torch
from allennlp.nn.util import get_mask_from_sequence_lengths

from srcframework.common.conv_frames import convolve_batched, convolve_per_utterance, min_samples
from srcframework.modules.field_encoders.audio_frames import audio_lengths
from srcframework.modules.field_encoders.pretrained import PretrainedFieldEncoder


class PretrainedAudioEncoder(PretrainedFieldEncoder):
    """
    The front of the encoders built on a wav2vec2-style speech model (wav2vec 2.0, SpeechT5's
    speech encoder). An `AudioField` batch (`{"waveform": B x T, "mask": B x T}`) is checked;
    the convolutional feature encoder gives each utterance the frames it gives alone, so that its
    group normalisation never counts the padding and an encoding does not depend on its batch:
    where the feature encoder trains, it runs once on the whole batch (`convolve_batched`: its
    backward is where the time goes, and one call a layer is faster); where it is frozen or no
    gradient is taken, one utterance at a time (`convolve_per_utterance`: the batched form also
    computes the padding, and with no backward it is no faster: benchmarks/audio_encoder_step.py).
    The frame mask follows the model's own length
    formula (one frame at least: a shorter utterance is padded with silence to one frame's
    receptive field); then come the feature projection and, when training, the model's
    SpecAugment masking. The subclass names the parts (`front_end`: the module that holds the
    feature projection, the masking and the length formula; `feature_encoder`) and runs the
    transformer on the frames (`encode_frames`).

    # Parameters

    model_name : `str`
        A folder written by `save_pretrained` or a hub name.
    freeze_feature_encoder : `bool`
        Keep the convolutional feature encoder fixed.
    **kwargs
        `output_dim`, `freeze`, `num_layers` and `dropout`, as `PretrainedFieldEncoder` takes them.
    """

    def __init__(self, model_name: str, freeze_feature_encoder: bool, **kwargs) -> None:
        super().__init__(model_name, **kwargs)
        if freeze_feature_encoder:
            self.front_end().freeze_feature_encoder()
        self.min_samples = min_samples(self.model.config.conv_kernel, self.model.config.conv_stride)

    def front_end(self) -> torch.nn.Module:
        raise NotImplementedError

    def feature_encoder(self) -> torch.nn.Module:
        raise NotImplementedError

    def encode_frames(self, hidden: torch.Tensor, mask: torch.BoolTensor) -> torch.Tensor:
        """The transformer's `B x L x hidden` encodings of the projected frames `hidden` (`B x L x
        hidden`, with the `B x L` frame mask)."""
        raise NotImplementedError

    def output_lengths(self, lengths: torch.Tensor) -> torch.Tensor:
        """Frames per utterance of `lengths` samples (one at least)."""
        return self.front_end()._get_feat_extract_output_lengths(lengths).clamp(min=1)

    def encode(self, field_tensors: Dict[str, torch.Tensor]) -> Tuple[torch.Tensor, torch.BoolTensor]:
        waveform, lengths = audio_lengths(field_tensors)
        front_end = self.front_end()
        feature_encoder = self.feature_encoder()
        trains = torch.is_grad_enabled() and any(p.requires_grad for p in feature_encoder.parameters())
        convolve = convolve_batched if trains else convolve_per_utterance
        features = convolve(feature_encoder, waveform, lengths, self.min_samples)
        mask = get_mask_from_sequence_lengths(self.output_lengths(lengths), features.size(1))
        hidden, _ = front_end.feature_projection(features)
        hidden = front_end._mask_hidden_states(hidden, attention_mask=mask.long())
        return self.encode_frames(hidden, mask), mask
