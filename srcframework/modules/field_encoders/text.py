from typing import Optional, Tuple

import torch
from allennlp.data import TextFieldTensors
from allennlp.modules import Highway, Seq2SeqEncoder, TextFieldEmbedder, TimeDistributed
from allennlp.modules.seq2vec_encoders import CnnEncoder
from allennlp.modules.text_field_embedders import BasicTextFieldEmbedder
from allennlp.modules.token_embedders import Embedding, TokenCharactersEncoder
from allennlp.nn.util import get_text_field_mask

from srcframework.common.errors import InputError
from srcframework.modules.dropout import Dropout
from srcframework.modules.field_encoders.field_encoder import FieldEncoder
from srcframework.modules.seq2vec_encoders.max_pool_cnn import MaxPoolCnn


def _pool_before_relu(embedder: TextFieldEmbedder) -> None:
    """Run each character encoder's AllenNLP `cnn` as `max_pool_cnn`: the same function of the same
    parameters (outputs and input gradients bit for bit), built with fewer full-size tensors."""
    for module in embedder.modules():
        if isinstance(module, TimeDistributed) and isinstance(module._module, CnnEncoder):
            faster = MaxPoolCnn.from_cnn(module._module)
            if faster is not None:
                module._module = faster


@FieldEncoder.register("text")
class TextFieldEncoder(FieldEncoder):
    """
    BiDAF's text side: token embeddings (e.g. GloVe + a character CNN), highway layers, a
    contextual `Seq2SeqEncoder` (e.g. a BiLSTM phrase layer), then dropout. A character encoder
    given as AllenNLP's `cnn` (ReLU, no projection) runs as `max_pool_cnn`, the same function in
    fewer operations, with the same parameter names.

    # Parameters

    text_field_embedder : `TextFieldEmbedder`
    encoder : `Seq2SeqEncoder`
    highway_layers : `int`, optional (default = `2`)
        Highway layers over the embeddings; 0 for none.
    dropout : `float`, optional (default = `0.2`)
        Dropout on the encoder's output (as in AllenNLP's BiDAF).
    max_embedding_positions : `int`, optional (default = `4096`)
        Outside training, the token embeddings and highway layers take at most this many positions
        (rows x tokens) at a time, where every token embedder embeds each token on its own
        (`embedding`, `glove`, `character_encoding`): the outputs are the same, but a long context
        no longer holds the character CNN's activations of all its tokens at once (a 38,000-token
        context whose longest word has 24 characters: about 1 GB together, against about 30 MB a
        piece of 4,096). `null` embeds the whole batch at once.
    """

    def __init__(
        self,
        text_field_embedder: TextFieldEmbedder,
        encoder: Seq2SeqEncoder,
        highway_layers: int = 2,
        dropout: float = 0.2,
        max_embedding_positions: Optional[int] = 4096,
    ) -> None:
        super().__init__()
        if max_embedding_positions is not None and max_embedding_positions < 1:
            raise InputError(f"text field encoder: max_embedding_positions must be at least 1 (or null), "
                             f"got {max_embedding_positions}")
        self.text_field_embedder = text_field_embedder
        _pool_before_relu(text_field_embedder)
        self.max_embedding_positions = max_embedding_positions
        # whether each token's embedding depends on that token alone, so that pieces of the
        # sequence can be embedded one after another
        self._token_by_token = isinstance(text_field_embedder, BasicTextFieldEmbedder) and all(
            isinstance(embedder, (Embedding, TokenCharactersEncoder)) for embedder in text_field_embedder.children()
        )
        embedding_dim = text_field_embedder.get_output_dim()
        self.highway = Highway(embedding_dim, highway_layers) if highway_layers > 0 else None
        if encoder.get_input_dim() != embedding_dim:
            raise InputError(
                f"text field encoder: encoder input_size {encoder.get_input_dim()} != embedding size {embedding_dim}"
            )
        self.encoder = encoder
        self.dropout = Dropout(dropout)

    def get_output_dim(self) -> int:
        return self.encoder.get_output_dim()

    def forward(self, field_tensors: TextFieldTensors) -> Tuple[torch.Tensor, torch.BoolTensor]:  # type: ignore
        mask = get_text_field_mask(field_tensors)
        batch_size, width = mask.shape
        step = width
        if self.max_embedding_positions is not None and self._token_by_token and not self.training:
            step = max(1, self.max_embedding_positions // max(1, batch_size))
        tensors = [tensor for group in field_tensors.values() for tensor in group.values()]
        if step >= width or not all(tensor.dim() >= 2 and tensor.size(1) == width for tensor in tensors):
            embedded = self._embed(field_tensors)
        else:
            embedded = torch.cat([
                self._embed({name: {key: tensor[:, start : start + step] for key, tensor in group.items()}
                             for name, group in field_tensors.items()})
                for start in range(0, width, step)
            ], dim=1)
        return self.dropout(self.encoder(embedded, mask)), mask

    def _embed(self, field_tensors: TextFieldTensors) -> torch.Tensor:
        """The token embeddings of `field_tensors` through the highway layers."""
        embedded = self.text_field_embedder(field_tensors)
        if torch.is_autocast_enabled(embedded.device.type):
            embedded = embedded.to(torch.get_autocast_dtype(embedded.device.type))
        return embedded if self.highway is None else self.highway(embedded)
