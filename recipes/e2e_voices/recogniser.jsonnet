// The study's recogniser (docs/results/e2e_voices.md, "The study (stage 3, after the pilot)"): the
// released speecht5-ctc-small continued with the lever the pilot chose, the control's setting
// (the first study's three readings and perturbation), until the development CER has not improved
// for 4 validations, at most 30 epochs of 519 updates of 16; the best epoch is kept (declared).
// The rest as in the pilot (pilot.libsonnet: a fresh Adam at a constant 2e-4, one thread, noise
// seed 1, model seed 13, the development voices' reading of the held-out articles scored after each
// epoch), as the page's dated note of 2026-12-07 says. It is also cascade B's and C's recogniser.
// In recipe.jsonnet as the training recogniser (group `study`):
//   allennlp recipe run e2e_voices recogniser
(import 'pilot.libsonnet').config('fid2qid_train.csv') + {
  trainer+: {
    num_epochs: 30,
    patience::: 4,
    callbacks: [
      { type: 'reader_epoch' },
      { type: 'declared_checkpoint', epoch: 'best' },
      { type: 'save_speecht5_ctc' },
      { type: 'torch_threads', threads: 1 },
    ],
  },
}
