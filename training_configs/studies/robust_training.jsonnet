// The single-config robust models of training_configs/ (NoiseQA's mitigation; SQuAD-SRC Table 4,
// right side) on the 1,190 XQuAD-en questions: clean-trained, noise-augmented (adding or
// replacing) and ASR-transcript-trained models, each on the clean questions, NoiseQA's three
// synthetic sets, our keyboard and back-translation sets, and the spoken XQuAD cascade with a
// voice that no training noise used. The pre-registered study of matched twins over 3 seeds is
// recipes/robust_training/study.jsonnet; this one compares the other configs. Train them, then:
//   allennlp compare training_configs/studies/robust_training.jsonnet -o runs/studies/robust_training
// Variables: BIDAF_ARCHIVE, BIDAF_AUGMENTED_ARCHIVE, BIDAF_TRANSCRIPTS_ARCHIVE (defaults under
// runs/), BIDAF_AUGMENTED_MIX_ARCHIVE (the variant whose noise replaces questions instead of adding
// them), BIDAF_AUGMENTED_E2_ARCHIVE (the augmented model after 2 of its 3 epochs:
// scripts/archive_checkpoint.py), TRANSFORMER_ARCHIVE and TRANSFORMER_AUGMENTED_ARCHIVE (empty:
// left out), NOISY_XQUAD (runs/noisy: the XQuAD ASR sets), STUDY_WITH_ASR ('1' adds our kal16 ASR
// set of XQuAD), SPOKEN_CASCADE ('0' leaves the spoken rms set out), SHARED_DATA (../shared/data).
// Each robust model names its clean-trained `twin`, so results.md has the `robustness` table (the
// twin's mean drop minus the model's, with its interval and Holm-corrected p, and the equivalence
// test of clean F1), and the noise it was trained on (`trained_on_noise`), so that the table puts
// the sets made by a held-out generator apart from those made by a generator used in training. An
// archive variable may hold several archives separated by commas, one per training seed.
local data = std.extVar('SHARED_DATA');
local xquad = data + '/xquad/xquad.en.json';
local noiseqa = data + '/noiseqa/synthetic/';
local noisy = std.extVar('NOISY_XQUAD');
local transformer = std.extVar('TRANSFORMER_ARCHIVE');
local transformer_augmented = std.extVar('TRANSFORMER_AUGMENTED_ARCHIVE');
local bidaf_augmented_mix = std.extVar('BIDAF_AUGMENTED_MIX_ARCHIVE');
local bidaf_augmented_e2 = std.extVar('BIDAF_AUGMENTED_E2_ARCHIVE');

// the generators of the training noise (bidaf_cpu_scale_augmented: noisy copies made by `allennlp
// noise`; bidaf_cpu_scale_asr_transcripts: ASR transcripts only)
local augmented_noise = ['asr', 'keyboard', 'misspelling', 'back_translation'];
local transcript_noise = ['asr'];

// A set of noised questions from a file, paired with the clean ones by id.
local file_set(file, interface, generator, order) = {
  data: file,
  original: xquad,
  interface: interface,
  kind: 'synthetic',
  generator: generator,
  order: order,
};

// A set our noise source generates from the clean questions (cached under OUT_DIR/sets).
local our_set(noise, interface, generator) = {
  original: xquad,
  noise: noise,
  interface: interface,
  kind: 'synthetic',
  generator: generator,
  order: 2,
};

// A model's weights: one archive, or several separated by commas (one per training seed).
local weights(archive) =
  local archives = std.split(archive, ',');
  if std.length(archives) > 1 then { archives: archives } else { archive: archive };

// A model entry, or none when its archive variable is empty.
local optional(name, archive, batch_size=40, twin=null, noise=null) =
  if archive == '' then {} else {
    [name]: weights(archive) + { batch_size: batch_size }
            + (if twin != null then { twin: twin } else {})
            + (if noise != null then { trained_on_noise: noise } else {}),
  };
// A twin's name when its archive is given (a model whose twin is left out is compared to none).
local present(name, archive) = if archive != '' then name else null;

{
  models: {
    bidaf: weights(std.extVar('BIDAF_ARCHIVE')) + { batch_size: 40 },
    bidaf_augmented: weights(std.extVar('BIDAF_AUGMENTED_ARCHIVE')) + {
      batch_size: 40, twin: 'bidaf', trained_on_noise: augmented_noise,
    },
    bidaf_transcripts: weights(std.extVar('BIDAF_TRANSCRIPTS_ARCHIVE')) + {
      batch_size: 40, twin: 'bidaf', trained_on_noise: transcript_noise,
    },
  }
  + optional('bidaf_augmented_mix', bidaf_augmented_mix, twin='bidaf', noise=augmented_noise)
  + optional('bidaf_augmented_e2', bidaf_augmented_e2, twin='bidaf', noise=augmented_noise)
  + optional('transformer', transformer, batch_size=16)
  + optional('transformer_augmented', transformer_augmented, batch_size=16, twin=present('transformer', transformer),
             noise=augmented_noise),
  test_sets: {
    clean: { data: xquad, interface: 'clean', kind: 'natural' },
    // NoiseQA's generators: none of them made training noise
    noiseqa_asr: file_set(noiseqa + 'xquad-asr-synthetic.json', 'asr', 'noiseqa_asr', 1),
    noiseqa_keyboard: file_set(noiseqa + 'xquad-keyboard-synthetic.json', 'keyboard', 'noiseqa_keyboard', 1),
    noiseqa_translation: file_set(noiseqa + 'xquad-translation-synthetic.json', 'translation', 'noiseqa_translation', 1),
    // ours: the generators of the training noise
    ours_keyboard: our_set({ type: 'keyboard' }, 'keyboard', 'keyboard'),
    ours_back_translation: our_set({ type: 'back_translation' }, 'translation', 'back_translation'),
  } + (
    // the spoken cascade: flite rms, a voice that no training noise used -> pocketsphinx default
    // (SPOKEN_CASCADE='0' leaves it out, e.g. to run the text sets while it is being made)
    if std.extVar('SPOKEN_CASCADE') != '0' then {
      spoken_cascade_rms: file_set(noisy + '/xquad_asr_rms.json', 'asr', 'asr_unseen_voice', 3),
    } else {}
  ) + (
    // STUDY_WITH_ASR='1' adds flite kal16 (a training voice) -> pocketsphinx default
    if std.extVar('STUDY_WITH_ASR') == '1' then { ours_asr: file_set(noisy + '/xquad_asr_kal16.json', 'asr', 'asr', 2) } else {}
  ),
}
