import logging
from typing import Dict, Iterable, List, Optional, Tuple

import torch
from allennlp.common.checks import ConfigurationError
from allennlp.nn.util import get_mask_from_sequence_lengths

from srcframework.modules.field_encoders.field_encoder import FieldEncoder

logger = logging.getLogger(__name__)

# Where the encoder's weights sit in a SpeechT5 checkpoint: under "speecht5.encoder." in the
# task models (SpeechT5ForSpeechToText, ...ForTextToSpeech, ...ForSpeechToSpeech), under
# "encoder." in a saved SpeechT5Model, at the top in a saved SpeechT5EncoderWith*Prenet.
SPEECHT5_ENCODER_PREFIXES = ("speecht5.encoder.", "encoder.", "")
WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "pytorch_model.bin.index.json")
# Old checkpoints name the weight-normalised positional convolution weight_g / weight_v.
LEGACY_WEIGHT_NORM = {".weight_g": ".parametrizations.weight.original0", ".weight_v": ".parametrizations.weight.original1"}


def pretrained_config(model_name: str, model_type: str):
    """The transformers config of `model_name` (a folder or a hub name), checked to be of
    `model_type`; a `ConfigurationError` naming `model_name` when there is none."""
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(model_name)
    except (OSError, ValueError) as error:
        raise ConfigurationError(
            f"cannot load a {model_type} model from {model_name!r}: it is neither a folder holding a "
            f"config.json nor a hub model available offline ({error})"
        ) from None
    if config.model_type != model_type:
        raise ConfigurationError(f"{model_name!r} holds a {config.model_type!r} model, not a {model_type!r} one")
    return config


def checkpoint_state_dict(model_name: str) -> Dict[str, torch.Tensor]:
    """Every tensor of the checkpoint of `model_name` (a folder or a hub name; safetensors or
    pytorch_model.bin, whole or sharded), under the names it was saved with."""
    from transformers.modeling_utils import load_state_dict
    from transformers.utils import cached_file
    from transformers.utils.hub import get_checkpoint_shard_files

    for name in WEIGHT_FILES:
        resolved = cached_file(
            model_name,
            name,
            _raise_exceptions_for_missing_entries=False,
            _raise_exceptions_for_connection_errors=False,
        )
        if resolved is None:
            continue
        files = get_checkpoint_shard_files(model_name, resolved)[0] if name.endswith(".json") else [resolved]
        state: Dict[str, torch.Tensor] = {}
        for file in files:
            state.update(load_state_dict(file))
        return state
    raise ConfigurationError(f"{model_name!r} holds no weights (looked for {', '.join(WEIGHT_FILES)})")


def rename_legacy_keys(state: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    """`state` with old weight-norm names (`conv.weight_g`, `conv.weight_v`) renamed to the
    parametrization names that modules built with this torch use."""
    if not hasattr(torch.nn.utils.parametrizations, "weight_norm"):
        return state
    renamed = {}
    for key, value in state.items():
        for old, new in LEGACY_WEIGHT_NORM.items():
            if key.endswith(old):
                key = key[: -len(old)] + new
        renamed[key] = value
    return renamed


def load_speecht5_encoder(model_class, model_name: str, prenet_key: str, fallbacks: Optional[Dict[str, List[str]]] = None):
    """
    A `SpeechT5EncoderWithSpeechPrenet` or `SpeechT5EncoderWithTextPrenet` (`model_class`) with
    the encoder weights of the SpeechT5 checkpoint `model_name`, whichever SpeechT5 class saved it.

    `transformers` cannot do this by itself: `model_class.from_pretrained` on a
    SpeechT5ForSpeechToText folder only strips the `speecht5.` prefix, finds none of its keys
    (they start with `encoder.`) and keeps random weights, with nothing but a logged warning.
    Here the checkpoint's encoder keys (under the prefix that holds `prenet_key`) are cut out,
    renamed, and handed to `from_pretrained` as its `state_dict`. `fallbacks` maps an encoder
    key missing from the checkpoint to full checkpoint keys that may stand in for it (an empty
    list: it may stay at its initial value). Any other missing weight is a `ConfigurationError`.
    """
    from transformers.utils import logging as transformers_logging

    fallbacks = fallbacks or {}
    config = pretrained_config(model_name, "speecht5")
    checkpoint = checkpoint_state_dict(model_name)
    prefix = next((p for p in SPEECHT5_ENCODER_PREFIXES if p + prenet_key in checkpoint), None)
    substitutes = {}
    if prefix is None:
        prefix = next((p for p in SPEECHT5_ENCODER_PREFIXES if p + "wrapped_encoder.layer_norm.weight" in checkpoint), None)
        for key, candidates in fallbacks.items():
            found = next((c for c in candidates if c in checkpoint), None)
            if found is not None:
                substitutes[key] = found
        if prefix is None or prenet_key not in substitutes:
            raise ConfigurationError(
                f"{model_name!r} holds no SpeechT5 encoder with a {prenet_key.split('.')[1]!r} prenet "
                f"(no key ending in {prenet_key!r}); it was saved as {config.architectures}"
            )
    state = {k[len(prefix) :]: v for k, v in checkpoint.items() if k.startswith(prefix + "prenet.")}
    state.update({k[len(prefix) :]: v for k, v in checkpoint.items() if k.startswith(prefix + "wrapped_encoder.")})
    for key, found in substitutes.items():
        logger.warning("%s: no encoder weight %s; using the checkpoint's %s", model_name, key, found)
        state[key] = checkpoint[found]
    state = rename_legacy_keys(state)
    verbosity = transformers_logging.get_verbosity()
    transformers_logging.set_verbosity_error()  # it would report missing keys "at None"; checked below
    try:
        model, info = model_class.from_pretrained(None, config=config, state_dict=state, output_loading_info=True)
    except RuntimeError as error:  # weights whose shapes do not fit the config
        raise ConfigurationError(f"{model_name!r}: the encoder weights do not fit its config: {error}") from None
    finally:
        transformers_logging.set_verbosity(verbosity)
    model.config.name_or_path = model_name
    buffers = {name for name, _ in model.named_buffers()}
    missing = [k for k in info["missing_keys"] if k not in buffers]
    tolerated = [k for k in missing if k in fallbacks]
    if tolerated:
        logger.warning("%s: %s not in the checkpoint; left at their initial values", model_name, ", ".join(tolerated))
    missing = [k for k in missing if k not in fallbacks]
    if missing or info["mismatched_keys"]:
        raise ConfigurationError(
            f"{model_name!r}: the encoder weights do not fit {model_class.__name__}: missing {missing}, "
            f"mismatched {info['mismatched_keys']}"
        )
    return model


def audio_lengths(field_tensors: Dict[str, torch.Tensor]) -> Tuple[torch.Tensor, torch.Tensor]:
    """The `B x T` waveform of an audio field's batch and the number of real samples of each row,
    after checking the `waveform` / `mask` pair (the mask must be True on a prefix of each row)."""
    if not isinstance(field_tensors, dict) or "waveform" not in field_tensors or "mask" not in field_tensors:
        keys = sorted(field_tensors) if isinstance(field_tensors, dict) else type(field_tensors).__name__
        raise ValueError(f"an audio encoder needs an AudioField batch {{'waveform', 'mask'}}, got {keys}")
    waveform, mask = field_tensors["waveform"], field_tensors["mask"].bool()
    if waveform.dim() != 2 or mask.shape != waveform.shape:
        raise ValueError(
            f"waveform must be B x T with a mask of the same shape; got {tuple(waveform.shape)} and {tuple(mask.shape)}"
        )
    lengths = mask.sum(-1)
    if not torch.equal(mask, get_mask_from_sequence_lengths(lengths, mask.size(1))):
        raise ValueError("the audio mask must be True on the first samples of each row and False after them")
    if (lengths == 0).any():
        empty = torch.nonzero(lengths == 0).view(-1).tolist()
        raise ValueError(f"rows {empty} of the audio batch hold no samples")
    return waveform, lengths


def min_samples(conv_kernel: Iterable[int], conv_stride: Iterable[int]) -> int:
    """The fewest samples that give one frame out of a convolution stack."""
    samples = 1
    for kernel, stride in reversed(list(zip(conv_kernel, conv_stride))):
        samples = (samples - 1) * stride + kernel
    return samples


def convolve_per_utterance(
    feature_encoder: torch.nn.Module, waveform: torch.Tensor, lengths: torch.Tensor, shortest: int
) -> torch.Tensor:
    """
    The `B x L x C` output of a wav2vec2-style convolutional feature encoder, run on each row's
    real samples alone and zero-padded to the longest. Run on the padded batch instead, the
    group normalisation of the first layer (per channel, over all time steps) would mix the
    padding into every frame's statistics. A row shorter than `shortest` samples (one frame) is
    padded with silence up to it.
    """
    outputs = []
    for row, length in zip(waveform, lengths.tolist()):
        samples = row[:length]
        if length < shortest:
            samples = torch.nn.functional.pad(samples, (0, shortest - length))
        outputs.append(feature_encoder(samples.unsqueeze(0))[0].transpose(0, 1))
    return torch.nn.utils.rnn.pad_sequence(outputs, batch_first=True)


def truncate_layers(layers: torch.nn.ModuleList, num_layers: Optional[int]) -> torch.nn.ModuleList:
    if num_layers is None:
        return layers
    if not 1 <= num_layers <= len(layers):
        raise ConfigurationError(f"num_layers must be between 1 and {len(layers)}, got {num_layers}")
    return layers[:num_layers]


class PretrainedFieldEncoder(FieldEncoder):
    """Freezing, dropout and the output projection shared by the encoders built on a pretrained
    `transformers` model (`self.model`); subclasses implement `encode`."""

    def __init__(self, model: torch.nn.Module, output_dim: Optional[int], freeze: bool, dropout: float) -> None:
        super().__init__()
        self.model = model
        self.freeze = freeze
        if freeze:
            self.model.requires_grad_(False)
            self.model.eval()
        hidden_size = model.config.hidden_size
        self.dropout = torch.nn.Dropout(dropout)
        self.projection = torch.nn.Linear(hidden_size, output_dim) if output_dim is not None else None
        self._output_dim = output_dim if output_dim is not None else hidden_size

    def get_output_dim(self) -> int:
        return self._output_dim

    def train(self, mode: bool = True):
        """A frozen pretrained model stays in eval mode (no dropout, LayerDrop or SpecAugment)."""
        super().train(mode)
        if self.freeze:
            self.model.eval()
        return self

    def encode(self, field_tensors) -> Tuple[torch.Tensor, torch.BoolTensor]:
        raise NotImplementedError

    def forward(self, field_tensors) -> Tuple[torch.Tensor, torch.BoolTensor]:  # type: ignore
        with torch.set_grad_enabled(torch.is_grad_enabled() and not self.freeze):
            encoded, mask = self.encode(field_tensors)
        encoded = self.dropout(encoded)
        if self.projection is not None:
            encoded = self.projection(encoded)
        return encoded, mask


@FieldEncoder.register("speecht5")
class SpeechT5AudioEncoder(PretrainedFieldEncoder):
    """
    Encodes an `AudioField` batch (`{"waveform": B x T, "mask": B x T}`, 16 kHz, each utterance
    normalised to zero mean and unit variance) with the speech encoder of a pretrained SpeechT5
    (`SpeechT5EncoderWithSpeechPrenet`: a convolutional feature encoder that downsamples the
    waveform 320 times, i.e. a frame every 20 ms, then the transformer encoder), projected to
    `output_dim`. Returns `B x L x output_dim` and the `B x L` frame mask, whose lengths follow
    the convolution stack's own length formula.

    The encoder weights are read from any SpeechT5 checkpoint (e.g. microsoft/speecht5_asr,
    saved as SpeechT5ForSpeechToText, whose keys start with `speecht5.encoder.`).

    Padding does not change an utterance's encodings: the convolutions run on each utterance's
    samples alone (their group normalisation would otherwise count the padding), padded frames
    are zeroed before the positional convolution, and the transformer gets the frame mask. So an
    utterance encodes the same in any batch, up to float rounding. (Calling the prenet on the
    padded batch, as `SpeechT5EncoderWithSpeechPrenet.forward` does, lets the padding leak into
    the real frames through both.) An utterance shorter than one frame's receptive field (400
    samples for the real models) is padded with silence to one frame.

    # Parameters

    model_name : `str`
        A folder written by `save_pretrained` or a hub name, such as `"microsoft/speecht5_asr"`.
    output_dim : `int`, optional (default = the model's hidden size, no projection)
        Width of a linear projection of the encodings (the span head's input size).
    freeze : `bool`, optional (default = `False`)
        Keep the pretrained weights fixed (and the pretrained model in eval mode, run without
        gradients); the projection still trains.
    freeze_feature_encoder : `bool`, optional (default = `False`)
        Keep only the convolutional feature encoder fixed.
    num_layers : `int`, optional (default = all)
        Keep only the first `num_layers` transformer layers (the rest are dropped, saving time).
    dropout : `float`, optional (default = `0.0`)
        Dropout on the pretrained encodings, before the projection.
    """

    def __init__(
        self,
        model_name: str,
        output_dim: Optional[int] = None,
        freeze: bool = False,
        freeze_feature_encoder: bool = False,
        num_layers: Optional[int] = None,
        dropout: float = 0.0,
    ) -> None:
        from transformers.models.speecht5.modeling_speecht5 import SpeechT5EncoderWithSpeechPrenet

        model = load_speecht5_encoder(
            SpeechT5EncoderWithSpeechPrenet, model_name, "prenet.feature_encoder.conv_layers.0.conv.weight"
        )
        model.wrapped_encoder.layers = truncate_layers(model.wrapped_encoder.layers, num_layers)
        if freeze_feature_encoder:
            model.prenet.freeze_feature_encoder()
        super().__init__(model, output_dim, freeze, dropout)
        self.model_name = model_name
        self.min_samples = min_samples(model.config.conv_kernel, model.config.conv_stride)

    def output_lengths(self, lengths: torch.Tensor) -> torch.Tensor:
        """Frames per utterance of `lengths` samples (one at least)."""
        return self.model.prenet._get_feat_extract_output_lengths(lengths).clamp(min=1)

    def encode(self, field_tensors: Dict[str, torch.Tensor]) -> Tuple[torch.Tensor, torch.BoolTensor]:
        waveform, lengths = audio_lengths(field_tensors)
        prenet = self.model.prenet
        features = convolve_per_utterance(prenet.feature_encoder, waveform, lengths, self.min_samples)
        mask = get_mask_from_sequence_lengths(self.output_lengths(lengths), features.size(1))
        hidden, _ = prenet.feature_projection(features)
        hidden = prenet._mask_hidden_states(hidden, attention_mask=mask.long())
        hidden = hidden * mask.unsqueeze(-1)
        hidden = hidden + prenet.pos_conv_embed(hidden)
        hidden = hidden + prenet.pos_sinusoidal_embed((~mask).long())
        encoded = self.model.wrapped_encoder(hidden_states=hidden, attention_mask=mask.long()).last_hidden_state
        return encoded, mask
