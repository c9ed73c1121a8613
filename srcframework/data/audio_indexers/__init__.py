from srcframework.data.audio_indexers.audio_indexer import AudioIndexer, AudioTooLong, WaveformIndexer
