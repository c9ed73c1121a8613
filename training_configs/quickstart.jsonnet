// Quickstart: a small BiDAF on the project's embedded default data (srcframework/data/default),
// which trains in a few minutes on a laptop CPU. `make demo` runs it (into runs/quickstart); by hand:
//   allennlp train training_configs/quickstart.jsonnet -s runs/my_quickstart
// It validates on held-out articles of its training file (QUICKSTART_TRAIN, default
// srcframework/data/default/train.json); dev.json there is the test set `make demo` scores.
// Another SQuAD v1.1-format file, split the same way:
//   QUICKSTART_TRAIN=my_train.json allennlp train training_configs/quickstart.jsonnet -s runs/mine
local bidaf = import 'lib/bidaf.libsonnet';

bidaf.split(std.extVar('QUICKSTART_TRAIN'), passage_length_limit=null) + {
  model: bidaf.model(hidden=50, dropout=0.1),
  data_loader: {
    batch_sampler: { type: 'bucket', batch_size: 32, sorting_keys: ['context'] },
  },
  trainer: bidaf.trainer(epochs=8, lr=0.002) + { callbacks: bidaf.callbacks() },
}
