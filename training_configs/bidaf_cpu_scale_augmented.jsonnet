// The CPU-scale BiDAF trained with pre-generated interface noise added to the clean questions
// (NoiseQA's mitigation): in each epoch every training question is read clean and, with
// probability 1/2, once more as one of its noisy copies made by `allennlp noise` on the training
// split (ASR: 3 flite voices -> pocketsphinx `fast`; keyboard typos; human misspellings; apertium
// back-translation; 1/8 each), drawn afresh by its id. An epoch is thus about 1.5 times as long as
// the clean model's. Validation stays clean XQuAD-en. Make the copies first (README, "Robust
// training"), then:
//   allennlp train training_configs/bidaf_cpu_scale_augmented.jsonnet -s runs/bidaf_cpu_scale_augmented
// NOISY_TRAIN (default runs/noisy) is the folder of the copies. bidaf_cpu_scale_augmented_mix is
// the variant that replaces questions instead of adding them.
local base = import 'bidaf_cpu_scale.jsonnet';
local noisy = std.extVar('NOISY_TRAIN');

base + {
  dataset_reader+: {
    noisy_copies: {
      asr: noisy + '/train_asr.json',
      keyboard: noisy + '/train_keyboard.json',
      misspelling: noisy + '/train_misspelling.json',
      back_translation: noisy + '/train_back_translation.json',
    },
    // each question clean, plus a noisy version for half of them, split evenly over the interfaces
    keep_clean: true,
    noisy_copy_weights: { clean: 0.5, asr: 0.125, keyboard: 0.125, misspelling: 0.125, back_translation: 0.125 },
    noise_seed: 13,
  },
  // read the training data anew each epoch (fresh draws), keeping at most this many in memory
  data_loader+: { max_instances_in_memory: 2000 },
}
