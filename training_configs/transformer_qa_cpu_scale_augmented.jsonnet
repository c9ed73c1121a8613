// MiniLM QA (transformer_qa_cpu_scale) trained one epoch with the same pre-generated noisy copies,
// schedule and `keep_clean` as bidaf_cpu_scale_augmented: every training question is read clean
// and, for about half of them, once more as one of its noisy copies. Validation stays clean
// (held-out articles).
//   allennlp train training_configs/transformer_qa_cpu_scale_augmented.jsonnet -s runs/transformer_qa_cpu_scale_augmented
local base = import 'transformer_qa_cpu_scale.jsonnet';
local augmented = import 'bidaf_cpu_scale_augmented.jsonnet';

base + {
  dataset_reader+: {
    noisy_copies: augmented.dataset_reader.noisy_copies,
    noise_schedule: augmented.dataset_reader.noise_schedule,
    keep_clean: augmented.dataset_reader.keep_clean,
    noise_seed: augmented.dataset_reader.noise_seed,
  },
  // read anew each epoch (fresh draws)
  data_loader+: { max_instances_in_memory: 1000 },
  // about 913 updates (three quarters of the 1,217 batches of an epoch in which every question
  // is read twice; AllenNLP cannot count batches read anew each epoch): 90 warm-up updates,
  // then linear decay to 0
  trainer+: { learning_rate_scheduler: { type: 'linear_with_warmup', warmup_steps: 90, num_steps_per_epoch: 913 } },
}
