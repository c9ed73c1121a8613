from srcframework.data import audio_indexers, dataset_readers, fields, question_controls, token_indexers, tokenizers, vocabulary
