from srcframework.data import dataset_readers, tokenizers
