// End-to-end spoken-question QA with the small SpeechT5 pretrained here
// (speecht5_ctc_pretrain.jsonnet): its speech encoder, frozen, encodes the question audio; the
// BiDAF context encoder (GloVe 50d + character CNN + BiLSTM) and the shared `bi_attention` head
// are trained on the spoken CPU-scale training split (the three flite voices of the pretraining),
// validated on the held-out articles of that split (the pretraining's validation set), so that
// no test set chooses the epoch. From the repository root, after the
// pretraining (its header makes the folders):
//   allennlp train training_configs/e2e_speecht5_ctc.jsonnet -s runs/e2e_speecht5_ctc
// The encoder folder is SERIALIZATION_DIR/speecht5_ctc of the pretraining; another one:
// -o '{"model.question_encoder.model_name": "FOLDER"}'.
local e2e = import 'lib/e2e.libsonnet';
local bidaf = import 'lib/bidaf.libsonnet';

{
  dataset_reader: e2e.reader('runs/data/squad_dev_minus_xquad.json', passage_length_limit=400),
  validation_dataset_reader: e2e.reader('runs/data/squad_dev_minus_xquad.json'),
  train_data_path: 'runs/spoken_ctc/train3/fid2qid_train.csv',
  validation_data_path: 'runs/spoken_ctc/train3/fid2qid_heldout.csv',
  model: e2e.model('runs/speecht5_ctc/speecht5_ctc', freeze=true),
  data_loader: e2e.data_loader(20) + { max_instances_in_memory: 2000 },
  validation_data_loader: e2e.data_loader(40),
  trainer: bidaf.trainer(epochs=3),
}
