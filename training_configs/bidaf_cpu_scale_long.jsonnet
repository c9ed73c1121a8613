// The CPU-scale BiDAF trained for 8 epochs instead of 3 (bidaf_cpu_scale is far from converged
// at 3), keeping every epoch's weights so that any epoch can be archived
// (scripts/archive_checkpoint.py). Continue the 3-epoch run, optimizer state included:
//   python scripts/extend_run.py runs/bidaf_cpu_scale training_configs/bidaf_cpu_scale_long.jsonnet runs/bidaf_cpu_scale_long
//   allennlp train training_configs/bidaf_cpu_scale_long.jsonnet -s runs/bidaf_cpu_scale_long --recover
// or train it from scratch with `allennlp train ... -s runs/bidaf_cpu_scale_long`.
local base = import 'bidaf_cpu_scale.jsonnet';

base + {
  trainer+: { num_epochs: 8, checkpointer: { keep_most_recent_by_count: 8 } },
}
