// A check that the end-to-end model learns: train and validate on the SAME small spoken set (e.g.
// 300 questions made by `allennlp synthesize-speech`), so the validation F1 is the training-set F1
// and must rise well above its start. With a tiny random SpeechT5 (tests/tiny_models.py):
//   python tests/tiny_models.py speecht5 runs/tiny_speecht5
//   SPEECHT5=runs/tiny_speecht5 SRC_TRAIN=runs/src300/fid2qid_dev.csv \
//     allennlp train recipes/squad_src_paper/e2e_speecht5_overfit.jsonnet -s runs/e2e_overfit
// (25 epochs; another number: -o '{"trainer.num_epochs": N}'). `allennlp recipe run squad_src_paper
// check` makes the spoken set and the tiny SpeechT5, measures the untrained floor and trains it.
local e2e = import 'e2e_speecht5.jsonnet';
local lib = import '../../training_configs/lib/e2e.libsonnet';
local bidaf = import '../../training_configs/lib/bidaf.libsonnet';

e2e + {
  dataset_reader: e2e.validation_dataset_reader,
  // the training set itself: this config checks learning, it compares nothing
  validation_data_path: e2e.train_data_path,
  model: lib.model(std.extVar('SPEECHT5'), hidden=50, dropout=0.0),
  trainer: bidaf.trainer(epochs=25, lr=0.002) + { callbacks: bidaf.callbacks() },
}
