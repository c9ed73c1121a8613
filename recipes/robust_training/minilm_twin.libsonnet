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
      // 133 warm-up updates, then linear decay to 0 at the end of the epoch. The data loader reads
      // anew each epoch, so AllenNLP cannot count its batches: an epoch of the twins is 1,217
      // batches (counted with this reader and batch sampler on epoch 0's instances; the sampler's
      // padding noise may move it by a few)
      learning_rate_scheduler: { type: 'linear_with_warmup', warmup_steps: 133, num_steps_per_epoch: 1217 },
    },
  },
}
