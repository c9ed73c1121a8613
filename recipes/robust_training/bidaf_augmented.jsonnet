// The robust-training study's augmented BiDAF (docs/results/robust_training.md, "Protocol"):
// bidaf_cpu_scale (training articles of SQuAD v1.1 dev minus the XQuAD paragraphs; held-out
// articles validate; vocabulary from the clean training articles) trained 6 epochs from scratch,
// in which every training question is read clean and once more as one of its noisy copies (ASR,
// keyboard, misspelling, back-translation; equal weights), drawn by (SEED, epoch, question id).
// model.tar.gz holds the weights of epoch 6. One command, from the repository root:
//   SEED=1 NOISY_TRAIN=runs/noisy allennlp train recipes/robust_training/bidaf_augmented.jsonnet -s runs/robust_training/bidaf_augmented_s1
// SEED (1, 2, 3) sets every random seed and the noise seed; NOISY_TRAIN is the folder of the noisy
// copies (the recipe's data steps make them; recipe.jsonnet's `env` sets it, RUNS/noisy).
local twin = import 'bidaf_twin.libsonnet';
local noisy_copies = import '../../training_configs/lib/noisy_copies.libsonnet';

twin.config(noisy_copies.copies(std.extVar('NOISY_TRAIN')))
