"""Trainer callbacks that make a training run reproducible and its checkpoint declared, and set
torch's threads for it, and a checkpointer that writes each file whole or not at all."""
from srcframework.training import atomic_checkpointer, declared_checkpoint, reader_epoch, torch_threads  # noqa: F401
