// Quickstart: a small BiDAF on the project's embedded default data (srcframework/data/default),
// which trains in a few minutes on a laptop CPU. `make demo` runs it:
//   allennlp train training_configs/quickstart.jsonnet -s runs/quickstart
local bidaf = import 'lib/bidaf.libsonnet';
local data = 'srcframework/data/default/';

// It validates on held-out articles of train.json; dev.json is the test set `make demo` scores.
bidaf.split(data + 'train.json', passage_length_limit=null) + {
  model: bidaf.model(hidden=50, dropout=0.1),
  data_loader: {
    batch_sampler: { type: 'bucket', batch_size: 32, sorting_keys: ['context'] },
  },
  trainer: bidaf.trainer(epochs=8, lr=0.002) + { callbacks: bidaf.callbacks() },
}
