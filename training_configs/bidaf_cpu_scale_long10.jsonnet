// bidaf_cpu_scale_long trained on for 2 more epochs (10 in all), the clean twin of
// bidaf_cpu_scale_augmented_grow. Continue the 8-epoch run, optimizer state included:
//   python scripts/extend_run.py runs/bidaf_cpu_scale_long training_configs/bidaf_cpu_scale_long10.jsonnet runs/bidaf_cpu_scale_long10
//   allennlp train training_configs/bidaf_cpu_scale_long10.jsonnet -s runs/bidaf_cpu_scale_long10 --recover
local base = import 'bidaf_cpu_scale_long.jsonnet';

base + {
  trainer+: { num_epochs: 10, checkpointer: { keep_most_recent_by_count: 10 } },
}
