// bidaf_cpu_scale trained and validated on ASR transcripts of the questions:
//   ASR_TRAIN: a SQuAD JSON whose questions are ASR transcripts of the training questions (made
//              with `allennlp noise --type asr` or `allennlp transcribe`; XQuAD's ids are still
//              left out), ASR_DEV: the same for XQuAD-en.
//   ASR_TRAIN=... ASR_DEV=... allennlp train training_configs/bidaf_cpu_scale_asr_transcripts.jsonnet -s runs/x
local clean = import 'bidaf_cpu_scale.jsonnet';

clean + {
  train_data_path: std.extVar('ASR_TRAIN'),
  validation_data_path: std.extVar('ASR_DEV'),
}
