from srcframework.data import audio_indexers, dataset_readers, fields, token_indexers, tokenizers, vocabulary
