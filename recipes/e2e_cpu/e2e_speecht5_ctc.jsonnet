// End-to-end spoken-question QA with the small SpeechT5 pretrained here
// (speecht5_ctc_pretrain.jsonnet): its speech encoder, frozen, encodes the question audio and a
// trained projection maps it to the span head's width; the BiDAF context encoder (GloVe 50d +
// character CNN + BiLSTM) and the shared `bi_attention` head start from the CPU-scale text BiDAF
// (E2E_TEXT_INIT_RUN, epoch E2E_TEXT_INIT_EPOCH: by default the last epoch of
// the robust-training recipe's clean BiDAF, seed 1, trained on the same questions typed; its vocabulary too), so that the
// question side is what this training has to learn. It trains on the spoken CPU-scale training
// split, one utterance of each question with the voice drawn from the pretraining's three
// (8,308 utterances an epoch), and validates on the held-out articles of that split (the
// pretraining's validation set: the articles the text configs hold out, so the text BiDAF never
// trained on them), so that no test set chooses the epoch. From the repository root,
// after the pretraining (its header makes the folders):
//   python recipes/e2e_cpu/split_spoken_ids.py runs/spoken_ctc/train3/fid2qid_{kal,awb,slt}.csv \
//       --squad-file runs/data/squad_dev_minus_xquad.json --per-question 1 \
//       --train runs/spoken_ctc/train3/fid2qid_train_1.csv --held-out runs/spoken_ctc/train3/fid2qid_heldout.csv
//   allennlp train recipes/e2e_cpu/e2e_speecht5_ctc.jsonnet -s runs/e2e_speecht5_ctc
// e2e_speecht5_ctc_finetune.jsonnet then fine-tunes the speech encoder too. The encoder folder is
// SERIALIZATION_DIR/speecht5_ctc of the pretraining; another one:
// -o '{"model.question_encoder.model_name": "FOLDER"}'.
local e2e = import '../../training_configs/lib/e2e.libsonnet';
local bidaf = import '../../training_configs/lib/bidaf.libsonnet';
local init_run = std.extVar('E2E_TEXT_INIT_RUN');
local init_weights = init_run + '/model_state_e' + std.extVar('E2E_TEXT_INIT_EPOCH') + '_b0.th';
local split = 'runs/data/squad_dev_minus_xquad.json';

{
  dataset_reader: e2e.reader(split, passage_length_limit=400),
  // the held-out questions are read by all three voices
  validation_dataset_reader: e2e.reader(split, several_recordings=true),
  train_data_path: 'runs/spoken_ctc/train3/fid2qid_train_1.csv',
  validation_data_path: 'runs/spoken_ctc/train3/fid2qid_heldout.csv',
  include_in_archive: ['training_record.json'],
  // the text model's vocabulary, so that its embeddings and weights fit
  vocabulary: { type: 'from_files', directory: init_run + '/vocabulary' },
  model: e2e.model('runs/speecht5_ctc/speecht5_ctc', freeze=true) + {
    initializer: {
      regexes: [['context_encoder\\..*|span_head\\..*', { type: 'pretrained', weights_file_path: init_weights }]],
    },
  },
  data_loader: e2e.data_loader(20) + { max_instances_in_memory: 2000 },
  validation_data_loader: e2e.data_loader(40),
  trainer: bidaf.trainer(epochs=3) + { checkpointer: { keep_most_recent_by_count: 3 } },
}
