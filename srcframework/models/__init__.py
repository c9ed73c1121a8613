from srcframework.models.span_qa import SpanQA
