// MiniLM QA (transformer_qa_cpu_scale) trained one epoch with the same pre-generated noisy copies
// and weights as bidaf_cpu_scale_augmented: each training question is drawn, by its id, clean or
// as one of its noisy copies. Validation stays clean XQuAD-en.
//   allennlp train training_configs/transformer_qa_cpu_scale_augmented.jsonnet -s runs/transformer_qa_cpu_scale_augmented
local base = import 'transformer_qa_cpu_scale.jsonnet';
local augmented = import 'bidaf_cpu_scale_augmented.jsonnet';

base + {
  dataset_reader+: {
    noisy_copies: augmented.dataset_reader.noisy_copies,
    noisy_copy_weights: augmented.dataset_reader.noisy_copy_weights,
    noise_seed: 13,
  },
}
