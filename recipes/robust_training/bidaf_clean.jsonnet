// The robust-training study's clean BiDAF, the matched twin of bidaf_augmented.jsonnet: the same
// config without the noisy copies. The noise schedule still draws, by (SEED, epoch, question id),
// which questions get a second instance, and this twin reads those a second time clean: both twins
// read the same number of instances in every epoch (the same optimizer updates) and share one
// vocabulary. model.tar.gz holds the weights of epoch 6.
//   SEED=1 allennlp train recipes/robust_training/bidaf_clean.jsonnet -s runs/robust_training/bidaf_clean_s1
local twin = import 'bidaf_twin.libsonnet';

twin.config(null)
