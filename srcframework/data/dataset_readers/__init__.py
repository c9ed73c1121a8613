from srcframework.data.dataset_readers.squad import SquadReader
from srcframework.data.dataset_readers.squad_src import SquadSrcReader
