// A noise share that grows over training: bidaf_cpu_scale_augmented_long (every question clean,
// plus a noisy copy for half of them) trained on for 2 more epochs (10 in all) in which every
// question is read clean and once more as one of its noisy copies (1/4 each interface). Its
// clean twin is bidaf_cpu_scale_long10 (2 more clean epochs). The schedule (1/2 for 8 epochs,
// then 1 for 2) and the comparison at epoch 10 were fixed before training. Continue the 8-epoch
// run, optimizer state and vocabulary included (AllenNLP would otherwise build the vocabulary
// anew from the differently drawn questions, which the saved weights do not fit):
//   python scripts/extend_run.py runs/bidaf_cpu_scale_augmented_long training_configs/bidaf_cpu_scale_augmented_grow.jsonnet \
//       runs/bidaf_cpu_scale_augmented_grow --allow dataset_reader.noisy_copy_weights --allow vocabulary
//   allennlp train training_configs/bidaf_cpu_scale_augmented_grow.jsonnet -s runs/bidaf_cpu_scale_augmented_grow --recover
local base = import 'bidaf_cpu_scale_augmented_long.jsonnet';

base + {
  dataset_reader+: {
    noisy_copy_weights: { clean: 0, asr: 0.25, keyboard: 0.25, misspelling: 0.25, back_translation: 0.25 },
  },
  vocabulary: { type: 'from_files', directory: 'runs/bidaf_cpu_scale_augmented_long/vocabulary' },
  trainer+: { num_epochs: 10, checkpointer: { keep_most_recent_by_count: 10 } },
}
