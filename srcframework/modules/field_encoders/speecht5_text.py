from typing import Dict, Optional, Tuple

import torch
from allennlp.data import TextFieldTensors

from srcframework.modules.field_encoders.checkpoints import load_speecht5_encoder, pretrained_config
from srcframework.modules.field_encoders.field_encoder import FieldEncoder
from srcframework.modules.field_encoders.pretrained import PretrainedFieldEncoder

# SpeechT5 pre-training shares one token embedding between the text encoder and text decoder
# prenets (`share_input_output_embed`); checkpoints fine-tuned for ASR keep only the decoder's.
DECODER_EMBEDDINGS = ["speecht5.decoder.prenet.embed_tokens.weight", "decoder.prenet.embed_tokens.weight"]


@FieldEncoder.register("speecht5_text")
class SpeechT5TextEncoder(PretrainedFieldEncoder):
    """
    Encodes a text question with SpeechT5's text encoder (`SpeechT5EncoderWithTextPrenet`:
    character embeddings + scaled positions, then the transformer encoder that SpeechT5 shares
    between speech and text), projected to `output_dim`: the text side of a comparison with the
    `speecht5` audio encoder. Takes a `TextField` indexed by the `speecht5` token indexer
    (`{"token_ids", "mask"}`, as AllenNLP's `pretrained_transformer` indexer would give) and
    returns `B x L x output_dim` with the `B x L` token mask.

    The weights come from any SpeechT5 checkpoint. One saved with the text encoder prenet (such
    as microsoft/speecht5_tts) loads whole. One without (microsoft/speecht5_asr keeps the speech
    prenet) gives its text decoder's token embeddings, which pre-training shares with the text
    encoder, and leaves the positional scale `alpha` at 1.0 (logged as a warning).

    # Parameters

    model_name : `str`
        A folder written by `save_pretrained` or a hub name, such as `"microsoft/speecht5_tts"`.
    indexer_name : `str`, optional
        The key of the `speecht5` indexer in the field's tensors; needed only when the field has
        more than one indexer.
    **kwargs
        `output_dim`, `freeze`, `num_layers`, `dropout` and `load_weights`, as `PretrainedFieldEncoder` takes them.
    """

    def __init__(self, model_name: str, *, indexer_name: Optional[str] = None, **kwargs) -> None:
        super().__init__(model_name, **kwargs)
        self.indexer_name = indexer_name

    @classmethod
    def build_model(cls, model_name: str) -> torch.nn.Module:
        from transformers.models.speecht5.modeling_speecht5 import SpeechT5EncoderWithTextPrenet

        return SpeechT5EncoderWithTextPrenet(pretrained_config(model_name, "speecht5"))

    @staticmethod
    def load_model(model_name: str) -> torch.nn.Module:
        from transformers.models.speecht5.modeling_speecht5 import SpeechT5EncoderWithTextPrenet

        return load_speecht5_encoder(
            SpeechT5EncoderWithTextPrenet,
            model_name,
            "prenet.embed_tokens.weight",
            fallbacks={"prenet.embed_tokens.weight": DECODER_EMBEDDINGS, "prenet.encode_positions.alpha": []},
        )

    @staticmethod
    def transformer(model: torch.nn.Module) -> torch.nn.Module:
        return model.wrapped_encoder

    def _indexed(self, field_tensors: TextFieldTensors) -> Dict[str, torch.Tensor]:
        if self.indexer_name is not None:
            if self.indexer_name not in field_tensors:
                raise ValueError(f"no indexer {self.indexer_name!r} in the text field (it has {sorted(field_tensors)})")
            return field_tensors[self.indexer_name]
        if len(field_tensors) != 1:
            raise ValueError(f"the text field has indexers {sorted(field_tensors)}: set indexer_name")
        return next(iter(field_tensors.values()))

    def encode(self, field_tensors: TextFieldTensors) -> Tuple[torch.Tensor, torch.BoolTensor]:
        tensors = self._indexed(field_tensors)
        if "token_ids" not in tensors or "mask" not in tensors:
            raise ValueError(f"speecht5_text needs token_ids and a mask (the speecht5 indexer), got {sorted(tensors)}")
        token_ids, mask = tensors["token_ids"], tensors["mask"].bool()
        limit = self.model.config.max_text_positions
        if token_ids.size(1) > limit:
            raise ValueError(
                f"{token_ids.size(1)} tokens are more than SpeechT5's {limit} text positions; "
                "set max_length on the speecht5 token indexer"
            )
        encoded = self.model(input_values=token_ids, attention_mask=mask.long()).last_hidden_state
        return encoded, mask
