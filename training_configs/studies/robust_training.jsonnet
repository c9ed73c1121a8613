// Robust training (NoiseQA's mitigation; SQuAD-SRC Table 4, right side) on the 1,190 XQuAD-en
// questions: clean-trained, noise-augmented and ASR-transcript-trained models, each on the clean
// questions, NoiseQA's three synthetic sets, our keyboard, back-translation and ASR sets of XQuAD,
// and the spoken XQuAD cascade with a voice that no training noise used. Make the models and the
// sets first (README, "Robust training": scripts/robust_training.sh), then:
//   allennlp compare training_configs/studies/robust_training.jsonnet -o runs/studies/robust_training
// Variables: BIDAF_ARCHIVE, BIDAF_AUGMENTED_ARCHIVE, BIDAF_TRANSCRIPTS_ARCHIVE (defaults under
// runs/), BIDAF_AUGMENTED_MIX_ARCHIVE (the variant whose noise replaces questions instead of adding
// them), BIDAF_AUGMENTED_E2_ARCHIVE (the augmented model after 2 of its 3 epochs, about as many
// updates as the clean model's 3: scripts/archive_checkpoint.py), BIDAF_LONG_ARCHIVE and
// BIDAF_AUGMENTED_LONG_ARCHIVE (the clean and augmented twins trained 8 epochs:
// bidaf_cpu_scale_long.jsonnet, bidaf_cpu_scale_augmented_long.jsonnet), BIDAF_LONG10_ARCHIVE and
// BIDAF_AUGMENTED_GROW_ARCHIVE (both trained on to 10 epochs, the augmented one with every
// question's noisy copy: bidaf_cpu_scale_long10.jsonnet, bidaf_cpu_scale_augmented_grow.jsonnet),
// TRANSFORMER_ARCHIVE and TRANSFORMER_AUGMENTED_ARCHIVE (empty: left out), NOISY_XQUAD (runs/noisy:
// the XQuAD ASR sets), STUDY_WITH_ASR ('1' adds our kal16 ASR set of XQuAD), SPOKEN_CASCADE ('0'
// leaves the spoken rms set out), SHARED_DATA (../shared/data). Each robust model names its
// clean-trained `twin`, so results.md has the `robustness` table (mean drop against the twin's).
local data = std.extVar('SHARED_DATA');
local xquad = data + '/xquad/xquad.en.json';
local noiseqa = data + '/noiseqa/synthetic/';
local noisy = std.extVar('NOISY_XQUAD');
local transformer = std.extVar('TRANSFORMER_ARCHIVE');
local transformer_augmented = std.extVar('TRANSFORMER_AUGMENTED_ARCHIVE');
local bidaf_augmented_mix = std.extVar('BIDAF_AUGMENTED_MIX_ARCHIVE');
local bidaf_augmented_e2 = std.extVar('BIDAF_AUGMENTED_E2_ARCHIVE');
local bidaf_long = std.extVar('BIDAF_LONG_ARCHIVE');
local bidaf_augmented_long = std.extVar('BIDAF_AUGMENTED_LONG_ARCHIVE');
local bidaf_long10 = std.extVar('BIDAF_LONG10_ARCHIVE');
local bidaf_augmented_grow = std.extVar('BIDAF_AUGMENTED_GROW_ARCHIVE');

// A set of noised questions from a file, paired with the clean ones by id.
local file_set(file, interface, order) = {
  data: file,
  original: xquad,
  interface: interface,
  kind: 'synthetic',
  order: order,
};

// A set our noise source generates from the clean questions (cached under OUT_DIR/sets).
local our_set(noise, interface) = {
  original: xquad,
  noise: noise,
  interface: interface,
  kind: 'synthetic',
  order: 2,
};

// A model entry, or none when its archive variable is empty.
local optional(name, archive, batch_size=40, twin=null) =
  if archive == '' then {} else {
    [name]: { archive: archive, batch_size: batch_size } + (if twin != null then { twin: twin } else {}),
  };
// A twin's name when its archive is given (a model whose twin is left out is compared to none).
local present(name, archive) = if archive != '' then name else null;

{
  models: {
    bidaf: { archive: std.extVar('BIDAF_ARCHIVE'), batch_size: 40 },
    bidaf_augmented: { archive: std.extVar('BIDAF_AUGMENTED_ARCHIVE'), batch_size: 40, twin: 'bidaf' },
    bidaf_transcripts: { archive: std.extVar('BIDAF_TRANSCRIPTS_ARCHIVE'), batch_size: 40, twin: 'bidaf' },
  }
  + optional('bidaf_augmented_mix', bidaf_augmented_mix, twin='bidaf')
  + optional('bidaf_augmented_e2', bidaf_augmented_e2, twin='bidaf')
  + optional('bidaf_long', bidaf_long)
  + optional('bidaf_augmented_long', bidaf_augmented_long, twin=present('bidaf_long', bidaf_long))
  + optional('bidaf_long10', bidaf_long10)
  + optional('bidaf_augmented_grow', bidaf_augmented_grow, twin=present('bidaf_long10', bidaf_long10))
  + optional('transformer', transformer, batch_size=16)
  + optional('transformer_augmented', transformer_augmented, batch_size=16, twin=present('transformer', transformer)),
  test_sets: {
    clean: { data: xquad, interface: 'clean', kind: 'natural' },
    noiseqa_asr: file_set(noiseqa + 'xquad-asr-synthetic.json', 'asr', 1),
    noiseqa_keyboard: file_set(noiseqa + 'xquad-keyboard-synthetic.json', 'keyboard', 1),
    noiseqa_translation: file_set(noiseqa + 'xquad-translation-synthetic.json', 'translation', 1),
    ours_keyboard: our_set({ type: 'keyboard' }, 'keyboard'),
    ours_back_translation: our_set({ type: 'back_translation' }, 'translation'),
  } + (
    // the spoken cascade: flite rms, a voice that no training noise used -> pocketsphinx default
    // (SPOKEN_CASCADE='0' leaves it out, e.g. to run the text sets while it is being made)
    if std.extVar('SPOKEN_CASCADE') != '0' then { spoken_cascade_rms: file_set(noisy + '/xquad_asr_rms.json', 'asr', 3) } else {}
  ) + (
    // STUDY_WITH_ASR='1' adds flite kal16 (a training voice) -> pocketsphinx default
    if std.extVar('STUDY_WITH_ASR') == '1' then { ours_asr: file_set(noisy + '/xquad_asr_kal16.json', 'asr', 2) } else {}
  ),
}
