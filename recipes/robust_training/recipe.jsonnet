// The robust-training study (docs/results/robust_training.md, "Protocol"): the training split and
// its noisy copies, the BiDAF twins (3 seeds each) and the MiniLM QA twins (seed 1), each trained
// from scratch by one `allennlp train`, and the study. From a fresh clone after `make install`:
//   allennlp recipe run robust_training                  # every step
//   allennlp recipe run robust_training bidaf_clean_s2   # one training (or bidaf_clean: its 3 seeds)
//   allennlp recipe run robust_training --dry-run        # what would run, and why
//   allennlp recipe snapshot robust_training             # what is under way -> models/snapshots
// Noise jobs resume from their journals, trainings with --recover (noise is drawn by epoch, so a
// resumed run trains on what a straight run trains on). Two trainings side by side: two
// `allennlp recipe run robust_training STEP` in two shells.
local data = std.extVar('SHARED_DATA');
local noisy_copies = import '../../training_configs/lib/noisy_copies.libsonnet';

function(runs='runs')
  local out = runs + '/robust_training';
  local noisy = runs + '/noisy';
  local split = runs + '/data/squad_dev_minus_xquad.json';
  local xquad = data + '/xquad/xquad.en.json';
  local noise(input, output, kind, seed=0) = {
    needs: if input == split then ['split'] else [],
    command: ['allennlp', 'noise', input, output, '--noise', kind, '--workers', '2']
             + (if seed == 0 then [] else ['--seed', std.toString(seed)]),
    outputs: [output],
  };
  // the study's noisy XQuAD sets: the spoken one, and those of the training copies' generators (seed 1)
  local test_sets = {
    spoken_rms: noisy + '/xquad_asr_rms.json',
    ours_keyboard: out + '/sets/ours_keyboard.json',
    ours_back_translation: out + '/sets/ours_back_translation.json',
  };
  local twin(name, card, seeds, copies) = {
    config: 'recipes/robust_training/' + name + '.jsonnet',
    folder: out + '/' + name + '_s{seed}',
    seeds: seeds,
    threads: 1,
    card: card,
    depends_on: ['split'] + (if copies then ['noise_' + kind for kind in noisy_copies.interfaces] else []),
  };
  {
    description: 'BiDAF and MiniLM QA trained on clean questions against their twins trained with noisy copies',
    // the configs read the noisy copies from here
    env: { NOISY_TRAIN: noisy },
    trainings: {
      bidaf_clean: twin('bidaf_clean', 'bidaf-clean', [1, 2, 3], false),
      bidaf_augmented: twin('bidaf_augmented', 'bidaf-noise-augmented', [1, 2, 3], true),
      minilm_clean: twin('minilm_clean', 'minilm-qa-clean', [1], false),
      minilm_augmented: twin('minilm_augmented', 'minilm-qa-noise-augmented', [1], true),
    },
    steps: {
      split: {
        command: ['python', 'scripts/make_training_split.py', '--output', split,
                  '--train', runs + '/data/train_articles.json', '--validation', runs + '/data/validation_articles.json'],
        outputs: [split, runs + '/data/train_articles.json', runs + '/data/validation_articles.json'],
      },
      // noisy copies of all 9,380 questions of the split (the readers leave the held-out articles out)
      noise_keyboard: noise(split, noisy + '/train_keyboard.json', 'keyboard'),
      noise_misspelling: noise(split, noisy + '/train_misspelling.json', 'misspelling'),
      noise_back_translation: noise(split, noisy + '/train_back_translation.json', 'back_translation'),
      // ASR: flite kal16, awb, slt -> pocketsphinx `fast` (allennlp list-noise asr-fast-3voices)
      noise_asr: noise(split, noisy + '/train_asr.json', 'asr-fast-3voices'),
      // the spoken test set: XQuAD-en read by flite rms (a voice no training copy used), pocketsphinx default
      xquad_asr: noise(xquad, test_sets.spoken_rms, 'asr-heldout-voice'),
      // our keyboard and back-translation sets of XQuAD, seed 1
      xquad_keyboard: noise(xquad, test_sets.ours_keyboard, 'keyboard', seed=1),
      xquad_back_translation: noise(xquad, test_sets.ours_back_translation, 'back_translation', seed=1),
      study: {
        needs: ['bidaf_clean', 'bidaf_augmented', 'minilm_clean', 'minilm_augmented', 'xquad_asr', 'xquad_keyboard',
                'xquad_back_translation'],
        job: { type: 'compare', study: 'recipes/robust_training/study.jsonnet', output: out + '/study', workers: 2, runs: runs },
        inputs: ['recipes/robust_training/study.jsonnet'],
        outputs: [out + '/study/results.json'],
      },
      // writes committed files (results.json, the README's tables): only when named
      report: {
        optional: true,
        needs: ['study'],
        job: { type: 'report', results: out + '/study/results.json', recipe: 'recipes/robust_training' },
        outputs: ['recipes/robust_training/results.json', 'recipes/robust_training/pairs.tar.xz'],
      },
    },
    groups: { data: ['split', 'noise_keyboard', 'noise_misspelling', 'noise_back_translation', 'noise_asr', 'xquad_asr',
                     'xquad_keyboard', 'xquad_back_translation'] },
    // what the study reads: the noisy sets above and the interfaces of the training copies
    test_sets:: test_sets,
    training_noise:: noisy_copies.interfaces,
  }
