// The robust-training study's augmented MiniLM QA (one seed; docs/results/robust_training.md):
// transformer_qa_cpu_scale trained 1 epoch, every training question read clean and once more as
// one of its noisy copies, as bidaf_augmented.jsonnet.
//   SEED=1 NOISY_TRAIN=runs/noisy allennlp train recipes/robust_training/minilm_augmented.jsonnet -s runs/robust_training/minilm_augmented_s1
local twin = import 'minilm_twin.libsonnet';
local noisy_copies = import '../../training_configs/lib/noisy_copies.libsonnet';

twin.config(noisy_copies.copies(std.extVar('NOISY_TRAIN')))
