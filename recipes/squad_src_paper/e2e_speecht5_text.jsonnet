// Text-question twin of e2e_speecht5.jsonnet (SQuAD-SRC Table 5): the question is the reference
// TEXT, encoded by SpeechT5's text encoder; context encoder, span head and training are unchanged.
//   allennlp train recipes/squad_src_paper/e2e_speecht5_text.jsonnet -s runs/e2e_speecht5_text
// extVars: SQUAD_TRAIN (a SQuAD JSON file; its held-out articles validate), SPEECHT5 (as in
// e2e_speecht5.jsonnet).
local e2e = import 'e2e_speecht5.jsonnet';
local bidaf = import '../../training_configs/lib/bidaf.libsonnet';
local speech_model = std.extVar('SPEECHT5');

local reader(limit, articles) = bidaf.reader(passage_length_limit=limit, articles=articles, source=std.extVar('SQUAD_TRAIN')) + {
  question_token_indexers: { tokens: { type: 'speecht5', model_name: speech_model } },
};

e2e + {
  dataset_reader: reader(400, 'train'),
  validation_dataset_reader: reader(null, 'held_out'),
  train_data_path: std.extVar('SQUAD_TRAIN'),
  validation_data_path: std.extVar('SQUAD_TRAIN'),
  include_in_archive: ['training_record.json'],
  model+: {
    question_encoder: {
      type: 'speecht5_text',
      model_name: speech_model,
      output_dim: e2e.model.span_head.input_dim,
      dropout: 0.2,
    },
  },
  data_loader: { batch_sampler: { type: 'bucket', batch_size: 8, sorting_keys: ['context'] } },
  validation_data_loader: { batch_sampler: { type: 'bucket', batch_size: 16, sorting_keys: ['context'] } },
}
