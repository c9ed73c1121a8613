// The end-to-end model of e2e_speecht5_ctc.jsonnet with its speech encoder fine-tuned too (the
// convolutional feature encoder stays frozen): every weight starts from the frozen-encoder run's
// last epoch (E2E_FROZEN_RUN, epoch E2E_FROZEN_EPOCH), at half its learning rate. From the
// repository root, after that run:
//   allennlp train recipes/e2e_cpu/e2e_speecht5_ctc_finetune.jsonnet -s runs/e2e_speecht5_ctc_finetune
local frozen = import 'e2e_speecht5_ctc.jsonnet';
local bidaf = import '../../training_configs/lib/bidaf.libsonnet';
local run = std.extVar('E2E_FROZEN_RUN');

frozen + {
  vocabulary: { type: 'from_files', directory: run + '/vocabulary' },
  model+: {
    question_encoder+: { freeze: false },
    initializer: {
      regexes: [['.*', { type: 'pretrained', weights_file_path: run + '/model_state_e' + std.extVar('E2E_FROZEN_EPOCH') + '_b0.th' }]],
    },
  },
  trainer: bidaf.trainer(epochs=2, lr=0.0005) + { checkpointer: { keep_most_recent_by_count: 2 } },
}
