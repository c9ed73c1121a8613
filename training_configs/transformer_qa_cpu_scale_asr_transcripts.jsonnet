// transformer_qa_cpu_scale trained on ASR transcripts of its training questions and validated on
// the clean held-out articles of the training source:
//   ASR_TRAIN: a SQuAD JSON whose questions are ASR transcripts of the training split (made with
//              `allennlp noise --noise asr` or `allennlp transcribe`; XQuAD's ids and the held-out
//              articles are still left out).
//   ASR_TRAIN=... allennlp train training_configs/transformer_qa_cpu_scale_asr_transcripts.jsonnet -s runs/x
local clean = import 'transformer_qa_cpu_scale.jsonnet';

clean + {
  // the transcripts file is this reader's source: its held-out articles are left out
  dataset_reader+: { skip_invalid: true, source_file: std.extVar('ASR_TRAIN') },
  train_data_path: std.extVar('ASR_TRAIN'),
}
