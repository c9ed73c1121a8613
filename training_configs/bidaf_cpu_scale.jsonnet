// BiDAF at CPU scale: SQuAD v1.1 dev minus the 240 XQuAD paragraphs (9,380 questions) is the
// training source. About 10% of it, whole articles (7 articles, 1,072 questions), is held out
// to validate; the model trains on the other 8,308 questions. XQuAD-en stays a test set: it never
// validates, never enters the vocabulary and never picks an epoch; model.tar.gz holds the last
// epoch's weights. Run from the repository root:
//   allennlp train training_configs/bidaf_cpu_scale.jsonnet -s runs/bidaf_cpu_scale
// SHARED_DATA (default ../shared/data) points at the data folder.
local bidaf = import 'lib/bidaf.libsonnet';
local data = std.extVar('SHARED_DATA');
local xquad = data + '/xquad/xquad.en.json';

bidaf.split(data + '/squad/dev-v1.1.json', exclude=xquad) + {
  model: bidaf.model(),
  // Batches of 20 (not AllenNLP's 40): 8,308 questions give only 208 updates an epoch at 40.
  data_loader: {
    batch_sampler: { type: 'bucket', batch_size: 20, sorting_keys: ['context'] },
  },
  validation_data_loader: {
    batch_sampler: { type: 'bucket', batch_size: 40, sorting_keys: ['context'] },
  },
  trainer: bidaf.trainer(epochs=3),
}
