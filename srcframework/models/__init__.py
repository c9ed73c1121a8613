from srcframework.models.span_qa import SpanQA
from srcframework.models.transformer_qa import TransformerQA
