from srcframework.models.span_qa import SpanQA
from srcframework.models.transformer_qa import TransformerQA
from srcframework.models import speecht5_ctc, speecht5_ctc_callback  # noqa: F401
