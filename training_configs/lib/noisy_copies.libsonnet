// The noisy copies of the CPU-scale training split, one a training interface, as a reader's
// `noisy_copies` takes them: the files `allennlp noise` writes into `folder` (NOISY_TRAIN, default
// runs/noisy; the data steps of recipes/robust_training make them). ASR: 3 flite voices ->
// pocketsphinx `fast`; keyboard typos; human misspellings; apertium back-translation.
{
  interfaces: ['asr', 'keyboard', 'misspelling', 'back_translation'],

  copies(folder):: { [name]: folder + '/train_' + name + '.json' for name in $.interfaces },
}
