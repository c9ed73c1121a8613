// End to end on a CPU (README.md here): a small SpeechT5 pretrained here with CTC, the end-to-end
// model on it (two stages, two seeds), and the study against three cascades. From a fresh clone
// after `make install`:
//   allennlp recipe run e2e_cpu                     # every step, in order
//   allennlp recipe run e2e_cpu --until pretrain    # the data, the speech and the CTC SpeechT5
//   allennlp recipe run e2e_cpu e2e_finetune        # the second stage, each seed
//   allennlp recipe status e2e_cpu                  # where each step stands; the learning curves
// Synthesis and transcription resume from what they wrote, a training from its last epoch, the
// study from its cached pairs. The text BiDAF the end-to-end model starts from is the
// robust-training recipe's clean twin, seed 1, declared there: its released archive (bidaf-clean,
// in models/) is unpacked (`text_bidaf`), so no machine trains it again for this recipe.
local data = std.extVar('SHARED_DATA');
local xquad = data + '/xquad/xquad.en.json';
local robust_training = import '../robust_training/recipe.jsonnet';

function(runs='runs')
  local out = runs + '/e2e_cpu';
  local split = runs + '/data/squad_dev_minus_xquad.json';
  local spoken = runs + '/spoken_ctc';
  local train9 = spoken + '/train9';
  local pretrained = runs + '/speecht5_ctc';
  local lm = out + '/questions_3gram.arpa';
  local tuning = out + '/lm_decoder.json';
  local groups = { seen: spoken + '/xquad_seen', held_out: spoken + '/xquad_heldout' };
  local voices = { seen: 'training', held_out: 'held-out' };
  local synthesize(squad, folder, voices, split, seed) = {
    command: ['allennlp', 'synthesize-speech', squad, folder, '--voices', voices, '--split', split, '--seed', std.toString(seed),
              '--audio-format', 'flac', '--workers', '2'],
    outputs: [folder + '/fid2qid_' + split + '.csv'],
  };
  local recognizers = {
    pocketsphinx: { type: 'pocketsphinx' },
    speecht5_ctc: { type: 'speecht5_ctc', model_name: pretrained + '/speecht5_ctc' },
    speecht5_ctc_lm: { type: 'speecht5_ctc', model_name: pretrained + '/speecht5_ctc' },
  };
  local text = robust_training(runs).trainings.bidaf_clean;
  local twin = import '../robust_training/bidaf_twin.libsonnet';
  // the folder e2e_speecht5_ctc.jsonnet initialises from (a fixed path, written there)
  local text_weights = (import 'e2e_speecht5_ctc.jsonnet').text_bidaf;
  // the study's floor: every XQuAD question blanked to "?" (the `blank` noise source, seed 0)
  local blind = out + '/sets/blind.json';
  {
    description: 'a small SpeechT5 pretrained here, the end-to-end model on it, and three cascades, on spoken XQuAD',
    trainings: {
      // the CTC SpeechT5: the training split read by the 9 training voices
      pretrain: { config: 'recipes/e2e_cpu/speecht5_ctc_pretrain.jsonnet', folder: pretrained, card: 'speecht5-ctc-small',
                  depends_on: ['split_ids'] },
      // each seed: the speech encoder frozen, then the whole model
      e2e: { config: 'recipes/e2e_cpu/e2e_speecht5_ctc.jsonnet', folder: runs + '/e2e_speecht5_ctc_s{seed}', seeds: [1, 2],
             depends_on: ['pretrain', 'text_bidaf'] },
      e2e_finetune: { config: 'recipes/e2e_cpu/e2e_speecht5_ctc_finetune.jsonnet', folder: runs + '/e2e_speecht5_ctc_finetune_s{seed}',
                      seeds: [1, 2], card: 'e2e-speecht5-ctc', depends_on: ['e2e_s{seed}'] },
    },
    steps: {
      data: {
        command: ['python', 'scripts/make_training_split.py', '--output', split,
                  '--train', runs + '/data/train_articles.json', '--validation', runs + '/data/validation_articles.json'],
        outputs: [split, runs + '/data/train_articles.json', runs + '/data/validation_articles.json'],
      },
      // three readings of the training split, each by one group of three training voices
      // (srcframework.speech.voices.TRAINING_VOICE_GROUPS), so each question is heard in three voices of the nine
      speech_one: synthesize(split, train9, 'training-1', 'one', 1) + { needs: ['data'] },
      speech_two: synthesize(split, train9, 'training-2', 'two', 2) + { needs: ['data'] },
      speech_three: synthesize(split, train9, 'training-3', 'three', 3) + { needs: ['data'] },
      // the articles the text configs hold out (share 0.1, seed 0) validate, so the text BiDAF never trained on them
      split_ids: {
        needs: ['speech_one', 'speech_two', 'speech_three'],
        command: ['python', 'recipes/e2e_cpu/split_spoken_ids.py'] + [train9 + '/fid2qid_' + s + '.csv' for s in ['one', 'two', 'three']]
                 + ['--squad-file', split, '--train', train9 + '/fid2qid_train.csv', '--held-out', train9 + '/fid2qid_heldout.csv'],
        outputs: [train9 + '/fid2qid_train.csv', train9 + '/fid2qid_heldout.csv'],
      },
      // the text BiDAF the end-to-end model starts from and the cascades use: the robust-training
      // recipe's clean twin, seed 1, last epoch, from its released archive (its card's sha256 and
      // its training record checked); `allennlp recipe run robust_training bidaf_clean_s1 --train-released` trains it
      text_bidaf: {
        command: ['python', 'recipes/e2e_cpu/text_bidaf_weights.py', text.card, text_weights, '--epoch', std.toString(twin.epochs)],
        // the archive, not its card: the card's prose may change, and its sha256 must be the archive's anyway
        inputs: ['recipes/e2e_cpu/text_bidaf_weights.py', 'models/' + text.card + '.tar.gz'],
        outputs: [text_weights + '/weights.th'],
      },
      // spoken XQuAD: the nine training voices dealt over the questions, and the four held-out voices
      speech_seen: synthesize(xquad, groups.seen, voices.seen, 'dev', 0),
      speech_held_out: synthesize(xquad, groups.held_out, voices.held_out, 'dev', 0),
      // a word trigram LM of the 8,308 training questions; its decoder's weights chosen on 600
      // recordings of the held-out articles (XQuAD chooses nothing)
      lm: { needs: ['data'], command: ['allennlp', 'word-lm', runs + '/data/train_articles.json', lm], outputs: [lm] },
      tune_decoder: {
        needs: ['pretrain', 'lm', 'split_ids'],
        command: ['allennlp', 'tune-ctc-decoder', train9, tuning, '--model', pretrained + '/speecht5_ctc', '--language-model', lm,
                  '--split', 'heldout', '--squad', split, '--limit', '600'],
        outputs: [tuning],
      },
      blind: {
        command: ['allennlp', 'noise', xquad, blind, '--noise', 'blank', '--no-progress'],
        outputs: [blind],
      },
      study: {
        needs: ['text_bidaf', 'e2e_finetune', 'blind'] + ['transcribe_%s_%s' % [recognizer, group] for recognizer in std.objectFields(recognizers)
                                                               for group in std.objectFields(groups)],
        job: { type: 'compare', study: 'recipes/e2e_cpu/study.jsonnet', output: out + '/study', workers: 2, runs: runs },
        inputs: ['recipes/e2e_cpu/study.jsonnet'],
        outputs: [out + '/study/results.json'],
      },
      // writes committed files (results.json, the README's tables): only when named
      report: {
        optional: true,
        needs: ['study'],
        job: { type: 'report', results: out + '/study/results.json', recipe: 'recipes/e2e_cpu', pages: ['docs/results/e2e_cpu.md'] },
        outputs: ['recipes/e2e_cpu/results.json', 'recipes/e2e_cpu/pairs.tar.xz'],
      },
    } + {
      // spoken XQuAD by pocketsphinx (default search), by the CTC SpeechT5 (greedy) and with the LM
      ['transcribe_%s_%s' % [recognizer, group]]: {
        needs: ['speech_' + group] + (if recognizer == 'pocketsphinx' then [] else ['pretrain'])
               + (if recognizer == 'speecht5_ctc_lm' then ['tune_decoder'] else []),
        job: {
          type: 'transcribe',
          folder: groups[group],
          output: groups[group] + '/transcripts_' + recognizer + '.json',
          recognizer: recognizers[recognizer],
          workers: 2,
        } + (if recognizer == 'speecht5_ctc_lm' then { decoder_from: tuning } else {}),
        outputs: [groups[group] + '/transcripts_' + recognizer + '.json'],
      }
      for recognizer in std.objectFields(recognizers)
      for group in std.objectFields(groups)
    },
    // the spoken XQuAD folders by voice group, the recognisers of the cascades and the blind set,
    // for the studies that read them (study.jsonnet here, recipes/listening/study.jsonnet)
    spoken_sets:: groups,
    recognizer_names:: std.objectFields(recognizers),
    blind_set:: blind,
    groups: {
      speech: ['speech_one', 'speech_two', 'speech_three', 'split_ids', 'speech_seen', 'speech_held_out'],
      transcribe: ['transcribe_%s_%s' % [recognizer, group] for recognizer in std.objectFields(recognizers) for group in std.objectFields(groups)],
    },
  }
