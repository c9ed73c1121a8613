"""
Reading pretrained `transformers` checkpoints for the field encoders: a model's config, every
tensor of its weight files, the old weight-norm names, and the encoder of any SpeechT5 checkpoint.
"""
import logging
from typing import Dict, List, Optional

import torch
from allennlp.common.checks import ConfigurationError

logger = logging.getLogger(__name__)

# Where the encoder's weights sit in a SpeechT5 checkpoint: under "speecht5.encoder." in the
# task models (SpeechT5ForSpeechToText, ...ForTextToSpeech, ...ForSpeechToSpeech), under
# "encoder." in a saved SpeechT5Model, at the top in a saved SpeechT5EncoderWith*Prenet.
SPEECHT5_ENCODER_PREFIXES = ("speecht5.encoder.", "encoder.", "")
WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "pytorch_model.bin.index.json")
# Old checkpoints name the two tensors of a weight-normalised convolution (the positional
# convolution of wav2vec2 and SpeechT5) weight_g / weight_v; torch's weight-norm
# parametrization names them as on the right.
LEGACY_WEIGHT_NORM = {".weight_g": ".parametrizations.weight.original0", ".weight_v": ".parametrizations.weight.original1"}


def _replace_suffix(key: str, suffixes: Dict[str, str]) -> str:
    for old, new in suffixes.items():
        if key.endswith(old):
            return key[: -len(old)] + new
    return key


def legacy_weight_norm_name(key: str) -> str:
    """The old name (`conv.weight_g`, `conv.weight_v`) of a weight-norm parametrization key;
    any other key unchanged."""
    return _replace_suffix(key, {new: old for old, new in LEGACY_WEIGHT_NORM.items()})


def rename_legacy_keys(state: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    """`state` with old weight-norm names (`conv.weight_g`, `conv.weight_v`) renamed to the
    parametrization names that modules built with this torch use."""
    if not hasattr(torch.nn.utils.parametrizations, "weight_norm"):
        return state
    return {_replace_suffix(key, LEGACY_WEIGHT_NORM): value for key, value in state.items()}


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
