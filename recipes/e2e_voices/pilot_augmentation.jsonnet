// Pilot lever "augmentation" (docs/results/e2e_voices.md): reverberation and additive white or pink
// noise in the reader's perturbation (each on half of the utterances), and stronger SpecAugment:
// time masks p 0.1, feature masks p 0.05 of length 10.
(import 'pilot.libsonnet').config(
  'fid2qid_train.csv',
  perturbation={ reverberance: [0, 60], room_scale: [20, 100], reverb_probability: 0.5, snr_db: [5, 30], noise_probability: 0.5 },
  encoder={ mask_time_prob: 0.1, mask_feature_prob: 0.05, mask_feature_length: 10 },
)
