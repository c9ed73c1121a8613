// What the two MiniLM QA twins of the robust-training study share; they differ only in `copies`.
local bidaf = import '../../training_configs/lib/bidaf.libsonnet';
local base = import '../../training_configs/transformer_qa_cpu_scale.jsonnet';
local twin = import 'bidaf_twin.libsonnet';
local seed = std.parseInt(std.extVar('SEED'));

{
  epochs: 1,

  config(copies):: base + {
    random_seed: seed,
    numpy_seed: seed,
    pytorch_seed: seed,
    dataset_reader+: {
      keep_clean: true,
      noise_schedule: twin.schedule,
      noise_seed: seed,
    } + (if copies == null then {} else { noisy_copies: copies }),
    data_loader+: { max_instances_in_memory: 1000 },
    trainer+: {
      num_epochs: $.epochs,
      // about 1,330 updates (twice the 665 of one clean epoch): 10% warm-up, then linear decay
      learning_rate_scheduler: { type: 'linear_with_warmup', warmup_steps: 133 },
    },
  },
}
