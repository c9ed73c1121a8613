// The end-to-end model of e2e_speecht5_ctc.jsonnet, second stage: the speech encoder is fine-tuned
// too (the convolutional feature encoder stays frozen). Every weight starts from the first
// stage's archived epoch (runs/e2e_speecht5_ctc_s<SEED>/best.th: its best on the held-out
// articles, the run of the same SEED), at half its
// learning rate, on the same spoken training data and perturbation, until the validation F1 on
// the held-out articles has not improved for 3 epochs (one pass), at most 15; the archive holds
// the best epoch on that validation. This is the model the study compares (card
// e2e-speecht5-ctc). From the repository root, after the first stage:
//   SEED=1 allennlp train recipes/e2e_cpu/e2e_speecht5_ctc_finetune.jsonnet -s runs/e2e_speecht5_ctc_finetune_s1
local frozen = import 'e2e_speecht5_ctc.jsonnet';
local bidaf = import '../../training_configs/lib/bidaf.libsonnet';
local seed = std.extVar('SEED');
// the first stage of the same seed
local run = 'runs/e2e_speecht5_ctc_s' + seed;

frozen + {
  vocabulary: { type: 'from_files', directory: run + '/vocabulary' },
  model+: {
    question_encoder+: { freeze: false },
    initializer: {
      regexes: [['.*', { type: 'pretrained', weights_file_path: run + '/best.th' }]],
    },
  },
  // other perturbation draws than the first stage's
  dataset_reader+: { noise_seed: 100 + std.parseInt(seed) },
  trainer: bidaf.trainer(epochs=15, lr=0.0005, checkpoint='best') + {
    patience: 3,
    checkpointer: { keep_most_recent_by_count: 2 },
    callbacks+: [{ type: 'torch_threads', threads: 1 }],
  },
}
