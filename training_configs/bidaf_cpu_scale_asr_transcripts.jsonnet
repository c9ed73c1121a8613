// bidaf_cpu_scale trained on ASR transcripts of its training questions (SQuAD-SRC Table 4, right
// side) and validated on the clean held-out articles, so that its validation F1 compares with the
// clean model's.
//   ASR_TRAIN (default runs/noisy/train_asr.json): a SQuAD JSON whose questions are ASR
//   transcripts of the training split, from `allennlp noise` (recipes/robust_training) or
//   `allennlp transcribe`. XQuAD's ids are still left out, and so are the held-out articles. A question the recogniser heard
//   nothing of (an empty transcript) is skipped and counted.
//   allennlp train training_configs/bidaf_cpu_scale_asr_transcripts.jsonnet -s runs/bidaf_cpu_scale_asr_transcripts
local clean = import 'bidaf_cpu_scale.jsonnet';

clean + {
  // the transcripts file is this reader's source: its held-out articles are left out
  dataset_reader+: { skip_invalid: true, source_file: std.extVar('ASR_TRAIN') },
  train_data_path: std.extVar('ASR_TRAIN'),
  // its vocabulary comes from the transcripts it trains on
  vocabulary+: { data_path: std.extVar('ASR_TRAIN'), reader+: { skip_invalid: true, source_file: std.extVar('ASR_TRAIN') } },
}
