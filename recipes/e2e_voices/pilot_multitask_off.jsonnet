// The twin of pilot_multitask.jsonnet without the CTC loss (the protocol's stage 2, the pilot's
// fourth lever, docs/results/e2e_voices.md): the e2e_cpu second stage as it is, span loss only,
// seed 2 for 2 epochs from the same first stage (runs/e2e_speecht5_ctc_s2), validated on the
// development voices' reading of the held-out articles, the last epoch archived. In recipe.jsonnet
// as the training pilot_multitask_off (group `multitask`).
(import 'pilot_multitask.jsonnet') + { ctc_weight:: 0 }
