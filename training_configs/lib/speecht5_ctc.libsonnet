// The small SpeechT5 speech encoder pretrained here with CTC over characters (`speecht5_ctc`
// model), sized for two CPU cores: a 4-layer convolution stack (32, 64, 96, 144 channels;
// strides 5, 4, 4, 6: one frame every 30 ms) and 3 transformer layers of width 144 (4 heads,
// feed-forward 576). benchmarks/speecht5_ctc_step.py times a training step of this size.
{
  encoder:: {
    hidden_size: 144,
    encoder_layers: 3,
    encoder_attention_heads: 4,
    encoder_ffn_dim: 576,
    conv_dim: [32, 64, 96, 144],
    conv_kernel: [10, 8, 4, 6],
    conv_stride: [5, 4, 4, 6],
    num_conv_pos_embeddings: 32,
    num_conv_pos_embedding_groups: 8,
    feat_extract_norm: 'group',
    hidden_dropout: 0.1,
    attention_dropout: 0.1,
    activation_dropout: 0.1,
    feat_proj_dropout: 0.0,
    encoder_layerdrop: 0.0,
    // SpecAugment-style time masks on the projected features while training
    apply_spec_augment: true,
    mask_time_prob: 0.05,
    mask_time_length: 5,
  },

  model(seed=13):: {
    type: 'speecht5_ctc',
    encoder: $.encoder,
    speed_perturbation: [0.9, 1.1],
    volume_perturbation_db: [-6.0, 6.0],
    seed: seed,
  },

  // training augmentation of the spoken questions (`squad_src` reader's `audio_perturbation`): each
  // utterance's speed (tempo and pitch), pitch alone and volume, drawn from (noise_seed, epoch,
  // file id) as it is read; give it to the training reader only
  audio_perturbation:: { speed: [0.9, 1.1], pitch: [-200, 200], gain_db: [-6, 6] },

  // the SQuAD-SRC-layout reader; contexts are read but unused (they index with an empty vocabulary);
  // each question comes once per voice that read it
  reader(squad_file=null):: {
    type: 'squad_src',
    several_recordings: true,
    audio_indexer: { type: 'waveform', max_seconds: 15.0, overflow: 'truncate' },
  } + (if squad_file == null then {} else { squad_file: squad_file }),

  // batches of similar durations, a chunk of the (lazily read) data at a time
  data_loader(batch_size, in_memory=1600):: {
    batch_sampler: { type: 'bucket', batch_size: batch_size, sorting_keys: ['question'] },
    max_instances_in_memory: in_memory,
  },
}
