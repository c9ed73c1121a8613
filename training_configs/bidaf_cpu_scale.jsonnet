// BiDAF at CPU scale: train on SQuAD v1.1 dev minus the 240 XQuAD paragraphs (9,380 questions),
// validate on XQuAD-en (1,190 questions). Run from the repository root:
//   allennlp train training_configs/bidaf_cpu_scale.jsonnet -s runs/bidaf_cpu_scale
// SHARED_DATA (default ../shared/data) points at the data folder.
local bidaf = import 'lib/bidaf.libsonnet';
local data = std.extVar('SHARED_DATA');
local xquad = data + '/xquad/xquad.en.json';

{
  dataset_reader: bidaf.reader(passage_length_limit=400, exclude=xquad),
  validation_dataset_reader: bidaf.reader(),
  train_data_path: data + '/squad/dev-v1.1.json',
  validation_data_path: xquad,
  model: bidaf.model(),
  // Batches of 20 (not AllenNLP's 40): 9,380 questions give only 235 updates an epoch at 40.
  data_loader: {
    batch_sampler: { type: 'bucket', batch_size: 20, sorting_keys: ['context'] },
  },
  validation_data_loader: {
    batch_sampler: { type: 'bucket', batch_size: 40, sorting_keys: ['context'] },
  },
  trainer: bidaf.trainer(epochs=3),
}
