"""CER, WER and BLEU live in `srcframework.metrics.text_noise`; this name remains for older imports."""
from srcframework.metrics.text_noise import *  # noqa: F401,F403
