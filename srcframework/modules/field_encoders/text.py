from typing import Tuple

import torch
from allennlp.data import TextFieldTensors
from allennlp.modules import Highway, Seq2SeqEncoder, TextFieldEmbedder
from allennlp.nn.util import get_text_field_mask

from srcframework.common.errors import InputError
from srcframework.modules.field_encoders.field_encoder import FieldEncoder


@FieldEncoder.register("text")
class TextFieldEncoder(FieldEncoder):
    """
    BiDAF's text side: token embeddings (e.g. GloVe + a character CNN), highway layers, a
    contextual `Seq2SeqEncoder` (e.g. a BiLSTM phrase layer), then dropout.

    # Parameters

    text_field_embedder : `TextFieldEmbedder`
    encoder : `Seq2SeqEncoder`
    highway_layers : `int`, optional (default = `2`)
        Highway layers over the embeddings; 0 for none.
    dropout : `float`, optional (default = `0.2`)
        Dropout on the encoder's output (as in AllenNLP's BiDAF).
    """

    def __init__(
        self,
        text_field_embedder: TextFieldEmbedder,
        encoder: Seq2SeqEncoder,
        highway_layers: int = 2,
        dropout: float = 0.2,
    ) -> None:
        super().__init__()
        self.text_field_embedder = text_field_embedder
        embedding_dim = text_field_embedder.get_output_dim()
        self.highway = Highway(embedding_dim, highway_layers) if highway_layers > 0 else None
        if encoder.get_input_dim() != embedding_dim:
            raise InputError(
                f"text field encoder: encoder input_size {encoder.get_input_dim()} != embedding size {embedding_dim}"
            )
        self.encoder = encoder
        self.dropout = torch.nn.Dropout(dropout)

    def get_output_dim(self) -> int:
        return self.encoder.get_output_dim()

    def forward(self, field_tensors: TextFieldTensors) -> Tuple[torch.Tensor, torch.BoolTensor]:  # type: ignore
        mask = get_text_field_mask(field_tensors)
        embedded = self.text_field_embedder(field_tensors)
        if self.highway is not None:
            embedded = self.highway(embedded)
        return self.dropout(self.encoder(embedded, mask)), mask
