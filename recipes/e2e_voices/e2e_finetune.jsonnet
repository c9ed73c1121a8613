// The study's end-to-end model, second stage (docs/results/e2e_voices.md, "The study (stage 3, after
// the pilot)"): the first study's second stage (recipes/e2e_cpu/e2e_speecht5_ctc_finetune.jsonnet:
// the whole model fine-tuned but the convolutional feature encoder, at half the learning rate,
// other perturbation draws) from this study's first stage of the same seed (e2e.jsonnet here:
// runs/e2e_voices/e2e_s<SEED>/best.th and its vocabulary), without the CTC loss (stage 2's pilot did
// not take it), validated on the development voices, until the development F1 has not improved for
// 3 epochs, at most 15; the best epoch is archived (declared). In recipe.jsonnet as the training
// e2e_finetune (seeds 1 to 4, group `study`):
//   allennlp recipe run e2e_voices e2e_finetune_s1
local finetune = import '../e2e_cpu/e2e_speecht5_ctc_finetune.jsonnet';
local first = import 'e2e.jsonnet';
// the first stage of the same seed
local run = 'runs/e2e_voices/e2e_s' + std.extVar('SEED');

finetune + {
  validation_dataset_reader: first.validation_dataset_reader,
  validation_data_path: first.validation_data_path,
  vocabulary: { type: 'from_files', directory: run + '/vocabulary' },
  model+: {
    question_encoder+: { model_name: first.model.question_encoder.model_name },
    initializer: {
      regexes: [['.*', { type: 'pretrained', weights_file_path: run + '/best.th' }]],
    },
  },
}
