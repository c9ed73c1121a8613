// What the two BiDAF twins of the robust-training study share; they differ only in `copies`.
local bidaf = import '../../training_configs/lib/bidaf.libsonnet';
local base = import '../../training_configs/bidaf_cpu_scale.jsonnet';
local seed = std.parseInt(std.extVar('SEED'));

{
  // epochs and noise schedule: fixed in the protocol before any training
  epochs: 6,
  schedule: [{ from_epoch: 0, share: 1.0 }],

  config(copies):: base + {
    random_seed: seed,
    numpy_seed: seed,
    pytorch_seed: seed,
    dataset_reader+: {
      keep_clean: true,
      noise_schedule: $.schedule,
      noise_seed: seed,
    } + (if copies == null then {} else { noisy_copies: copies }),
    // read anew each epoch (fresh draws), keeping at most this many instances in memory
    data_loader+: { max_instances_in_memory: 2000 },
    trainer: bidaf.trainer(epochs=$.epochs, checkpoint='last') + {
      checkpointer: { keep_most_recent_by_count: $.epochs },
    },
  },
}
