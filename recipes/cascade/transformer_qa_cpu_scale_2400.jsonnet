// training_configs/transformer_qa_cpu_scale.jsonnet on the first 2,400 of its 9,380 training questions (one epoch,
// about 170 updates): a MiniLM fine-tuning that fits in well under an hour on 2 CPU cores.
//   allennlp train recipes/cascade/transformer_qa_cpu_scale_2400.jsonnet -s runs/transformer_qa_cpu_scale_2400
local base = import '../../training_configs/transformer_qa_cpu_scale.jsonnet';

base + {
  dataset_reader+: { max_instances: 2400 },
  trainer+: { learning_rate_scheduler: { type: 'linear_with_warmup', warmup_steps: 17 } },
}
