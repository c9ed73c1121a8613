from srcframework.data.dataset_readers.squad import SquadReader
