// The CPU-scale BiDAF trained with noise augmentation: each training question goes through a
// weighted mix of keyboard typos and human misspellings (a quarter stay clean), drawn afresh at
// every epoch by (seed 13, epoch). Validation stays clean (validation_dataset_reader has no
// question_noise). Run from the repository root:
//   allennlp train training_configs/bidaf_cpu_scale_noise_aug.jsonnet -s runs/bidaf_cpu_scale_noise_aug
local base = import 'bidaf_cpu_scale.jsonnet';
local data = std.extVar('SHARED_DATA');

base + {
  dataset_reader+: {
    question_noise: {
      type: 'mix',
      sources: [
        { type: 'keyboard', word_probability: 0.25 },
        { type: 'misspelling', path: data + '/misspellings/wikipedia_common_misspellings.txt' },
      ],
      weights: [2, 1],
      keep_clean: 0.25,
    },
    noise_seed: 13,
  },
  // read the training data anew each epoch (fresh noise), keeping at most this many in memory
  data_loader+: { max_instances_in_memory: 2000 },
}
