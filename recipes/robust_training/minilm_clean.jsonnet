// The matched clean twin of minilm_augmented.jsonnet: the drawn questions are read a second time
// clean, so both read the same instances per epoch.
//   SEED=1 allennlp train recipes/robust_training/minilm_clean.jsonnet -s runs/robust_training/minilm_clean_s1
local twin = import 'minilm_twin.libsonnet';

twin.config(null)
