from typing import Optional, Tuple

import torch
from allennlp.common.checks import ConfigurationError

from srcframework.modules.field_encoders.field_encoder import FieldEncoder


def truncate_layers(layers: torch.nn.ModuleList, num_layers: Optional[int]) -> torch.nn.ModuleList:
    if num_layers is None:
        return layers
    if not 1 <= num_layers <= len(layers):
        raise ConfigurationError(f"num_layers must be between 1 and {len(layers)}, got {num_layers}")
    return layers[:num_layers]


class PretrainedFieldEncoder(FieldEncoder):
    """
    What the field encoders built on a pretrained `transformers` model share: the model
    (`self.model`, read from `model_name` by the subclass's `load_model`) cut to its first
    `num_layers` transformer layers (the `layers` of the subclass's `transformer(model)`),
    freezing, and dropout and a linear projection after the encodings of the subclass's `encode`.

    # Parameters

    model_name : `str`
        A folder written by `save_pretrained` or a hub name.
    output_dim : `int`, optional (default = the model's hidden size, no projection)
        Width of a linear projection of the encodings (the span head's input size).
    freeze : `bool`, optional (default = `False`)
        Keep the pretrained weights fixed (and the pretrained model in eval mode, run without
        gradients); the projection still trains.
    num_layers : `int`, optional (default = all)
        Keep only the first `num_layers` transformer layers (the rest are dropped, saving time).
    dropout : `float`, optional (default = `0.0`)
        Dropout on the pretrained encodings, before the projection.
    load_weights : `bool`, optional (default = `True`)
        `False`: build the model from the `config.json` in `model_name` alone, every weight at its
        initial value, for a trained model whose archive holds every weight (a released archive
        carries its encoders' configs, `srcframework.models.archived_encoders`).
    """

    def __init__(
        self,
        model_name: str,
        output_dim: Optional[int] = None,
        freeze: bool = False,
        num_layers: Optional[int] = None,
        dropout: float = 0.0,
        load_weights: bool = True,
    ) -> None:
        super().__init__()
        if load_weights:
            model = self.load_model(model_name)
        else:
            model = self.build_model(model_name)
            model.config.name_or_path = model_name
        transformer = self.transformer(model)
        transformer.layers = truncate_layers(transformer.layers, num_layers)
        self.model = model
        self.model_name = model_name
        self.freeze = freeze
        if freeze:
            self.model.requires_grad_(False)
            self.model.eval()
        hidden_size = model.config.hidden_size
        self.dropout = torch.nn.Dropout(dropout)
        self.projection = torch.nn.Linear(hidden_size, output_dim) if output_dim is not None else None
        self._output_dim = output_dim if output_dim is not None else hidden_size

    @staticmethod
    def load_model(model_name: str) -> torch.nn.Module:
        """The pretrained model of `model_name`, every weight loaded (or a `ConfigurationError`)."""
        raise NotImplementedError

    @classmethod
    def build_model(cls, model_name: str) -> torch.nn.Module:
        """The model of the `config.json` in `model_name`, its weights at their initial values."""
        raise ConfigurationError(f"{cls.__name__} cannot be built from a config alone (load_weights: false)")

    @staticmethod
    def transformer(model: torch.nn.Module) -> torch.nn.Module:
        """The part of `model` whose `layers` are its transformer layers."""
        raise NotImplementedError

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

    def encode_pretrained(self, field_tensors) -> Tuple[torch.Tensor, torch.BoolTensor]:
        """The pretrained model's encodings and mask (`encode`), without gradients when frozen."""
        with torch.set_grad_enabled(torch.is_grad_enabled() and not self.freeze):
            return self.encode(field_tensors)

    def project(self, encoded: torch.Tensor) -> torch.Tensor:
        """Dropout and the projection to `output_dim` of the pretrained encodings."""
        encoded = self.dropout(encoded)
        if self.projection is not None:
            encoded = self.projection(encoded)
        return encoded

    def forward(self, field_tensors) -> Tuple[torch.Tensor, torch.BoolTensor]:  # type: ignore
        encoded, mask = self.encode_pretrained(field_tensors)
        return self.project(encoded), mask
