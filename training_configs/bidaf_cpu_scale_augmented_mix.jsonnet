// The CPU-scale BiDAF trained with pre-generated interface noise that REPLACES questions: in each
// epoch each training question is drawn, by its id, clean or as one of its noisy copies made by
// `allennlp noise` on the training split (ASR: 3 flite voices -> pocketsphinx `fast`; keyboard
// typos; human misspellings; apertium back-translation). Validation stays clean (held-out
// articles). Make the copies first (`allennlp recipe run robust_training data`), then:
//   allennlp train training_configs/bidaf_cpu_scale_augmented_mix.jsonnet -s runs/bidaf_cpu_scale_augmented_mix
// NOISY_TRAIN (default runs/noisy) is the folder of the copies. It keeps 40% of the questions clean
// each epoch; bidaf_cpu_scale_augmented adds the noisy versions to the clean questions instead.
local base = import 'bidaf_cpu_scale.jsonnet';
local noisy_copies = import 'lib/noisy_copies.libsonnet';

base + {
  dataset_reader+: {
    noisy_copies: noisy_copies.copies(std.extVar('NOISY_TRAIN')),
    // 40% clean, 60% noisy, the noisy share split evenly over the four interfaces
    noisy_copy_weights: { clean: 0.4, asr: 0.15, keyboard: 0.15, misspelling: 0.15, back_translation: 0.15 },
    noise_seed: 13,
  },
  // read the training data anew each epoch (fresh draws), keeping at most this many in memory
  data_loader+: { max_instances_in_memory: 2000 },
}
