"""Logging helpers shared by the layers."""
import contextlib
import logging
from typing import Iterator


@contextlib.contextmanager
def params_not_logged() -> Iterator[None]:
    """AllenNLP logs every parameter that `from_params` reads (`allennlp.common.params`, INFO);
    inside this block it does not: for objects built again, or built only to be read (a model
    card), whose parameters would only bury the output."""
    params_logger = logging.getLogger("allennlp.common.params")
    disabled, params_logger.disabled = params_logger.disabled, True
    try:
        yield
    finally:
        params_logger.disabled = disabled
