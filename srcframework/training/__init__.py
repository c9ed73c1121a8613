"""Trainer callbacks that make a training run reproducible and its checkpoint declared."""
from srcframework.training import declared_checkpoint, reader_epoch  # noqa: F401
