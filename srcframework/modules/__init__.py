from srcframework.modules import field_encoders, seq2seq_encoders, seq2vec_encoders, span_heads, token_embedders
