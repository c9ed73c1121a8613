"""Trainer callbacks that make a training run reproducible and its checkpoint declared, and set
torch's threads for it."""
from srcframework.training import declared_checkpoint, reader_epoch, torch_threads  # noqa: F401
