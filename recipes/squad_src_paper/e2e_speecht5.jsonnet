// End-to-end SQuAD-SRC model: SpeechT5 audio encoder for the spoken question, GloVe + char BiLSTM
// for the context, the shared bi-attention span head. Run from the repository root:
//   allennlp train recipes/squad_src_paper/e2e_speecht5.jsonnet -s runs/e2e_speecht5
// extVars (environment variables):
//   SRC_TRAIN             fid2qid_<split>.csv of a SQuAD-SRC-layout folder (wavs/ beside it)
//   SRC_HELDOUT           the map of held-out articles of the training source that validates
//                         (never the dev map, which holds XQuAD's paragraphs): split the training
//                         map with recipes/e2e_cpu/split_spoken_ids.py --held-out-share 0.1 --train T --held-out H
//                         and pass T as SRC_TRAIN and H as SRC_HELDOUT (no default: recipe.jsonnet's
//                         `env` sets both to the maps its `split` step writes)
//   SRC_SQUAD_FILE        the SQuAD JSON of the questions; '{split}' is replaced by the split
//                         (e.g. path/{split}-v1.1.json); '' = squad_<split>.json or squad.json in
//                         the folder, as `allennlp synthesize-speech` writes it
//   SPEECHT5              SpeechT5 checkpoint folder or hub name (default microsoft/speecht5_asr)
local e2e = import '../../training_configs/lib/e2e.libsonnet';
local bidaf = import '../../training_configs/lib/bidaf.libsonnet';
local squad_file = if std.extVar('SRC_SQUAD_FILE') == '' then null else std.extVar('SRC_SQUAD_FILE');

{
  dataset_reader: e2e.reader(squad_file, passage_length_limit=400),
  validation_dataset_reader: e2e.reader(squad_file),
  train_data_path: std.extVar('SRC_TRAIN'),
  validation_data_path: std.extVar('SRC_HELDOUT'),
  include_in_archive: ['training_record.json'],
  model: e2e.model(std.extVar('SPEECHT5')),
  data_loader: e2e.data_loader(8),
  validation_data_loader: e2e.data_loader(16),
  trainer: bidaf.trainer(epochs=10, lr=0.0005),
}
