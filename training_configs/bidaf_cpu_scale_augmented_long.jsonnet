// bidaf_cpu_scale_augmented (each question clean, plus a noisy copy for half of them) trained for
// 8 epochs, the same count as bidaf_cpu_scale_long, keeping every epoch's weights. Continue the
// 3-epoch run, optimizer state included (that run's saved config gives the same weights unnormalised:
// clean 1, each noise .25, hence --allow):
//   python scripts/extend_run.py runs/bidaf_cpu_scale_augmented training_configs/bidaf_cpu_scale_augmented_long.jsonnet \
//       runs/bidaf_cpu_scale_augmented_long --allow dataset_reader.noisy_copy_weights
//   allennlp train training_configs/bidaf_cpu_scale_augmented_long.jsonnet -s runs/bidaf_cpu_scale_augmented_long --recover
local base = import 'bidaf_cpu_scale_augmented.jsonnet';

base + {
  trainer+: { num_epochs: 8, checkpointer: { keep_most_recent_by_count: 8 } },
}
