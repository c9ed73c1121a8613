// The pilot's fourth lever, keeping the words (docs/results/e2e_voices.md, "The pilot"): the
// protocol's stage 2, declared there to run after the recogniser's pilot. The end-to-end model's
// second stage (recipes/e2e_cpu/e2e_speecht5_ctc_finetune.jsonnet: the whole model fine-tuned,
// every weight from the first stage's best epoch, at half its learning rate, on the same spoken
// training data and perturbation) with a CTC loss over characters on the speech encoder beside the
// span loss: the `speecht5` question encoder's `ctc_weight` 0.3 (its CTC layer starts from the
// recogniser's own, the ctc_head.safetensors of the encoder folder it names; the first stage kept
// that encoder frozen, so the layer fits it) and the training reader's `ctc_targets` (each
// question's normalised characters); the validation reader carries no targets, so the validation F1
// is the span head's alone. Seed 2 for 2 epochs (832 batches of 20), from the first stage of seed 2
// (runs/e2e_speecht5_ctc_s2, put back from its snapshot, which has left models/snapshots since and
// stays in the repository's history: the page's dated notes of 2026-12-06 and 2026-12-07), validated after each epoch on
// the development voices' reading of the held-out articles; the last epoch is archived (the pilot's
// outcome is after its budget). Its twin without the CTC loss is pilot_multitask_off.jsonnet (the
// same in all else); the lever is taken when this one's development F1 is at least 1 point higher.
// In recipe.jsonnet as the training pilot_multitask (group `multitask`):
//   allennlp recipe run e2e_voices multitask
local finetune = import '../e2e_cpu/e2e_speecht5_ctc_finetune.jsonnet';
local e2e = import '../../training_configs/lib/e2e.libsonnet';
local bidaf = import '../../training_configs/lib/bidaf.libsonnet';
local seed = 2;
// the first stage of seed 2
local run = 'runs/e2e_speecht5_ctc_s' + seed;

finetune + {
  // the weight of the CTC loss beside the span loss; 0 in the twin
  ctc_weight:: 0.3,
  random_seed: seed,
  numpy_seed: seed,
  pytorch_seed: seed,
  vocabulary: { type: 'from_files', directory: run + '/vocabulary' },
  dataset_reader+: { noise_seed: 100 + seed, ctc_targets: $.ctc_weight > 0 },
  // the development voices' reading of the held-out articles (the folder's own SQuAD file), unperturbed
  validation_dataset_reader: e2e.reader(several_recordings=true),
  validation_data_path: 'runs/spoken_voices/development/fid2qid_heldout.csv',
  model+: {
    question_encoder+: { ctc_weight: $.ctc_weight },
    // every weight from the first stage but the CTC layer, which it has not
    initializer: {
      regexes: [['.*', { type: 'pretrained', weights_file_path: run + '/best.th' }]],
      prevent_regexes: ['question_encoder\\.ctc_layer\\..*'],
    },
  },
  trainer: bidaf.trainer(epochs=2, lr=0.0005, checkpoint='last') + {
    checkpointer: { keep_most_recent_by_count: 2 },
    callbacks+: [{ type: 'torch_threads', threads: 1 }],
  },
}
