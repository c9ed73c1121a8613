// The CPU-scale BiDAF trained with pre-generated interface noise added to the clean questions
// (NoiseQA's mitigation): in each epoch every training question is read clean and, with
// probability 1/2 (drawn by noise seed, epoch and question id), once more as one of its noisy
// copies made by `allennlp noise` on the training split (ASR: 3 flite voices -> pocketsphinx
// `fast`; keyboard typos; human misspellings; apertium back-translation; equal weights). An epoch
// is thus about 1.5 times as long as the clean model's. Validation stays clean (held-out articles
// of the training source). Make the copies first (recipes/robust_training), then:
//   allennlp train training_configs/bidaf_cpu_scale_augmented.jsonnet -s runs/bidaf_cpu_scale_augmented
// NOISY_TRAIN (default runs/noisy) is the folder of the copies. bidaf_cpu_scale_augmented_mix is
// the variant that replaces questions instead of adding them.
local base = import 'bidaf_cpu_scale.jsonnet';
local noisy_copies = import 'lib/noisy_copies.libsonnet';

base + {
  dataset_reader+: {
    noisy_copies: noisy_copies.copies(std.extVar('NOISY_TRAIN')),
    keep_clean: true,
    noise_schedule: [{ from_epoch: 0, share: 0.5 }],
    noise_seed: 13,
  },
  // read the training data anew each epoch (fresh draws), keeping at most this many in memory
  data_loader+: { max_instances_in_memory: 2000 },
}
