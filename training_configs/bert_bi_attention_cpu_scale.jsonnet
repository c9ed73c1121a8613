// BERT encodings + the shared bi_attention span head (span_qa) at CPU scale: MiniLM's wordpiece
// vectors, pooled back to spaCy words (the `pretrained_transformer_mismatched` embedder), encode the
// context and, with the same weights, the question; BiDAF's attention flow, modelling and output
// layers pick the span. Same data split as bidaf_cpu_scale (training articles of SQuAD dev minus
// XQuAD; held-out articles validate). Run from the repository root:
//   allennlp train training_configs/bert_bi_attention_cpu_scale.jsonnet -s runs/bert_bi_attention_cpu_scale
local bidaf = import 'lib/bidaf.libsonnet';
local data = std.extVar('SHARED_DATA');
local xquad = data + '/xquad/xquad.en.json';
local transformer = std.extVar('MINILM');
local hidden = 384;  // MiniLM's hidden size; change it with MINILM
// longer word sequences are cut into segments of 256 wordpieces for the transformer
local indexer = { type: 'pretrained_transformer_mismatched', model_name: transformer, max_length: 256 };

local train = data + '/squad/dev-v1.1.json';
local reader(passage_length_limit=null, articles='all') = {
  type: 'squad_v1',
  token_indexers: { tokens: indexer },
  passage_length_limit: passage_length_limit,
  question_length_limit: 50,
  exclude_question_ids_from: xquad,
  articles: articles,
  source_file: train,
};

{
  dataset_reader: reader(passage_length_limit=300, articles='train'),
  validation_dataset_reader: reader(articles='held_out'),
  train_data_path: train,
  validation_data_path: train,
  include_in_archive: ['training_record.json'],
  model: {
    type: 'span_qa',
    context_encoder: {
      type: 'text',
      text_field_embedder: {
        token_embedders: { tokens: indexer { type: 'pretrained_transformer_mismatched' } },
      },
      highway_layers: 0,
      encoder: { type: 'pass_through', input_dim: hidden },
      dropout: 0.1,
    },
    span_head: {
      type: 'bi_attention',
      input_dim: hidden,
      modeling_dim: 100,
      modeling_layers: 1,
      dropout: 0.1,
      max_span_length: 30,
    },
  },
  data_loader: {
    batch_sampler: { type: 'bucket', batch_size: 16, sorting_keys: ['context'] },
  },
  validation_data_loader: {
    batch_sampler: { type: 'bucket', batch_size: 32, sorting_keys: ['context'] },
  },
  trainer: bidaf.trainer(epochs=1) + {
    grad_norm: 1.0,
    // the transformer is fine-tuned gently; the new span head learns at BiDAF's rate
    optimizer: {
      type: 'adamw',
      lr: 1e-3,
      weight_decay: 0.0,
      parameter_groups: [[['context_encoder\\.text_field_embedder'], { lr: 5e-5 }]],
    },
    learning_rate_scheduler: { type: 'linear_with_warmup', warmup_steps: 60 },
  },
}
