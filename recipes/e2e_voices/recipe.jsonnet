// The second end-to-end study (docs/results/e2e_voices.md): a speech encoder that hears voices it
// was not trained on. Stage 1, the pilot of three levers on the recogniser, each continuing the
// released speecht5-ctc-small for the same budget, scored on the development voices:
//   allennlp recipe run e2e_voices               # the e2e_cpu recipe's speech and pretrain steps, the
//                                                # extra and development readings, the three pilots
//   allennlp recipe status e2e_voices            # where each step stands; each pilot's curve
// Stage 2, the fourth lever's pilot: `allennlp recipe run e2e_voices multitask` (both arms and
// multitask_report). Stage 3, the study, is declared on the protocol page: its recogniser
// (`allennlp recipe run e2e_voices recogniser`), then the end-to-end model's two stages on it, 4
// seeds (`allennlp recipe run e2e_voices study` runs them all in order, with what they need);
// cascade C's decoder (`allennlp recipe run e2e_voices cascades`). Added once every training had
// ended: the analysis's inputs (`allennlp recipe run e2e_voices analysis_inputs`: the first study's
// spoken XQuAD-en in both voice groups, its floor and cascade A's transcripts, then cascades B's and
// C's transcripts by this study's recogniser), then the analysis (`allennlp recipe run e2e_voices
// analysis`: study_stage3.jsonnet, written before it ran; its report into the results page is still
// to be added).
// Variables: SHARED_DATA (../shared/data).
function(runs='runs')
  local split = runs + '/data/squad_dev_minus_xquad.json';
  local levers = { start: runs + '/speecht5_ctc', control: runs + '/e2e_voices/pilot_control',
                   voices: runs + '/e2e_voices/pilot_voices', augmentation: runs + '/e2e_voices/pilot_augmentation' };
  local train9 = runs + '/spoken_ctc/train9';
  local development = runs + '/spoken_voices/development';
  // the test sets of the first study (recipes/e2e_cpu): spoken XQuAD-en by voice group, and its floor
  local first = (import '../e2e_cpu/recipe.jsonnet')(runs);
  local test_groups = first.spoken_sets;
  local test_transcripts = runs + '/e2e_voices/test_transcripts';
  local test_transcript_steps = ['test_transcripts_%s_%s' % [cascade, group] for cascade in ['b', 'c']
                                 for group in std.objectFields(test_groups)];
  {
    description: 'a speech encoder that hears voices it was not trained on: the pilot of its levers',
    trainings: {
      pilot_control: { config: 'recipes/e2e_voices/pilot_control.jsonnet', folder: runs + '/e2e_voices/pilot_control',
                       depends_on: ['e2e_cpu_inputs', 'speech_development'] },
      pilot_voices: { config: 'recipes/e2e_voices/pilot_voices.jsonnet', folder: runs + '/e2e_voices/pilot_voices',
                      depends_on: ['e2e_cpu_inputs', 'speech_development', 'split_extra'] },
      pilot_augmentation: { config: 'recipes/e2e_voices/pilot_augmentation.jsonnet', folder: runs + '/e2e_voices/pilot_augmentation',
                            depends_on: ['e2e_cpu_inputs', 'speech_development'] },
      // stage 2, the fourth lever's pilot: the end-to-end second stage of seed 2 with and without
      // the CTC loss, from the same first stage (the page's dated note of 2026-12-06)
      pilot_multitask: { config: 'recipes/e2e_voices/pilot_multitask.jsonnet', folder: runs + '/e2e_voices/pilot_multitask',
                         depends_on: ['first_stage', 'speech_development'] },
      pilot_multitask_off: { config: 'recipes/e2e_voices/pilot_multitask_off.jsonnet', folder: runs + '/e2e_voices/pilot_multitask_off',
                             depends_on: ['first_stage', 'speech_development'] },
      // stage 3, the study: its recogniser first (the control's setting, until the development CER
      // stops improving)
      recogniser: { config: 'recipes/e2e_voices/recogniser.jsonnet', folder: runs + '/e2e_voices/recogniser',
                    depends_on: ['e2e_cpu_inputs', 'speech_development'] },
      // then the end-to-end model on it, each seed: the speech encoder frozen, then the whole model
      // (4 seeds, the power calculation's), validated on the development voices
      e2e: { config: 'recipes/e2e_voices/e2e.jsonnet', folder: runs + '/e2e_voices/e2e_s{seed}', seeds: [1, 2, 3, 4],
             depends_on: ['recogniser', 'text_bidaf', 'speech_development'] },
      e2e_finetune: { config: 'recipes/e2e_voices/e2e_finetune.jsonnet', folder: runs + '/e2e_voices/e2e_finetune_s{seed}',
                      seeds: [1, 2, 3, 4], depends_on: ['e2e_s{seed}'] },
    },
    steps: {
      // the first study's training split, its three readings and the released recogniser's weights
      e2e_cpu_inputs: {
        command: ['allennlp', 'recipe', 'run', 'e2e_cpu', 'data', 'speech_one', 'speech_two', 'speech_three', 'split_ids',
                  'pretrain', '--runs', runs],
        outputs: [train9 + '/fid2qid_train.csv', runs + '/speecht5_ctc/best.th'],
      },
      // the first study's first stage of seed 2 (speech encoder frozen), put back from its snapshot
      // in models/snapshots (or trained, where there is none), with the text BiDAF it starts from; the
      // snapshot has left the working tree (the page's dated note of 2026-12-07 says how to put it back)
      first_stage: {
        needs: ['e2e_cpu_inputs'],
        command: ['allennlp', 'recipe', 'run', 'e2e_cpu', 'text_bidaf', 'e2e_s2', '--runs', runs],
        outputs: [runs + '/e2e_speecht5_ctc_s2/best.th'],
      },
      // the text BiDAF the end-to-end model's context side and span head start from (the e2e_cpu
      // recipe's step: bidaf-clean's weights and vocabulary, from its released archive)
      text_bidaf: {
        needs: ['e2e_cpu_inputs'],
        command: ['allennlp', 'recipe', 'run', 'e2e_cpu', 'text_bidaf', '--runs', runs],
        outputs: [runs + '/e2e_cpu/text_bidaf/weights.th'],
      },
      // cascade C's decoder: the first study's word trigram LM of the training questions, its weight
      // and word score chosen on all 1,072 recordings of the development set (the first study's grid
      // and beam) for the study's recogniser; no test voice chooses anything
      lm: {
        needs: ['e2e_cpu_inputs'],
        command: ['allennlp', 'recipe', 'run', 'e2e_cpu', 'lm', '--runs', runs],
        outputs: [runs + '/e2e_cpu/questions_3gram.arpa'],
      },
      tune_decoder: {
        needs: ['recogniser', 'lm', 'speech_development'],
        command: ['allennlp', 'tune-ctc-decoder', development, runs + '/e2e_voices/lm_decoder.json',
                  '--model', runs + '/e2e_voices/recogniser/speecht5_ctc', '--language-model', runs + '/e2e_cpu/questions_3gram.arpa',
                  '--split', 'heldout'],
        outputs: [runs + '/e2e_voices/lm_decoder.json'],
      },
      // the 1,072 questions of the held-out articles read by the five development voices
      speech_development: {
        needs: ['e2e_cpu_inputs'],
        command: ['allennlp', 'synthesize-speech', runs + '/data/validation_articles.json', development, '--voices', 'development',
                  '--split', 'heldout', '--seed', '5', '--audio-format', 'flac', '--workers', '2'],
        outputs: [development + '/fid2qid_heldout.csv'],
      },
      // the training split read once more, by the 13 extra-training voices (seed 4)
      speech_extra: {
        needs: ['e2e_cpu_inputs'],
        command: ['allennlp', 'synthesize-speech', split, train9, '--voices', 'extra-training', '--split', 'extra',
                  '--seed', '4', '--audio-format', 'flac', '--workers', '2'],
        outputs: [train9 + '/fid2qid_extra.csv'],
      },
      // the four readings' training articles (the held-out articles are left out, as in the first study)
      split_extra: {
        needs: ['speech_extra'],
        command: ['python', 'recipes/e2e_cpu/split_spoken_ids.py'] + [train9 + '/fid2qid_' + s + '.csv' for s in ['one', 'two', 'three', 'extra']]
                 + ['--squad-file', split, '--train', train9 + '/fid2qid_train22.csv', '--held-out', train9 + '/fid2qid_heldout22.csv'],
        outputs: [train9 + '/fid2qid_train22.csv', train9 + '/fid2qid_heldout22.csv'],
      },
      // the pilot's outcome (pilot_report writes its committed results: only when named): every lever's recogniser (and the released one it continued from)
      // transcribes the development set greedily; the study scores the transcripts
      pilot_study: {
        needs: ['transcribe_' + lever for lever in std.objectFields(levers)],
        job: { type: 'compare', study: 'recipes/e2e_voices/study.jsonnet', output: runs + '/e2e_voices/pilot_study', workers: 1, runs: runs },
        inputs: ['recipes/e2e_voices/study.jsonnet'],
        outputs: [runs + '/e2e_voices/pilot_study/results.json'],
      },
      pilot_report: {
        optional: true,
        needs: ['pilot_study'],
        job: { type: 'report', results: runs + '/e2e_voices/pilot_study/results.json', recipe: 'recipes/e2e_voices', cards: false,
               pages: ['docs/results/e2e_voices.md'] },
        outputs: ['recipes/e2e_voices/results.json', 'recipes/e2e_voices/pairs.tar.xz'],
      },
    } + {
      ['transcribe_' + lever]: {
        needs: ['speech_development'] + (if lever == 'start' then ['e2e_cpu_inputs'] else ['pilot_' + lever]),
        job: {
          type: 'transcribe',
          folder: development,
          split: 'heldout',
          output: development + '/transcripts_' + lever + '.json',
          recognizer: { type: 'speecht5_ctc', model_name: levers[lever] + '/speecht5_ctc' },
          workers: 1,
        },
        outputs: [development + '/transcripts_' + lever + '.json'],
      }
      for lever in std.objectFields(levers)
    } + {
      // the same recognisers on the training voices' reading of the held-out articles (the first
      // study's validation set, 3,216 recordings): what a lever costs on voices it trained on
      ['seen_' + lever]: {
        needs: if lever == 'start' then ['e2e_cpu_inputs'] else ['pilot_' + lever],
        command: ['allennlp', 'evaluate', levers[lever] + '/model.tar.gz', train9 + '/fid2qid_heldout.csv',
                  '--output-file', runs + '/e2e_voices/seen_voices_' + lever + '.json'],
        outputs: [runs + '/e2e_voices/seen_voices_' + lever + '.json'],
      }
      for lever in std.objectFields(levers)
    } + {
      // stage 3's test sets, as the first study made them: XQuAD-en read by the nine training voices
      // (seen) and by the four held-out voices, the question-blind floor, and cascade A's
      // transcripts of both groups (pocketsphinx, its default search)
      test_sets: {
        command: ['allennlp', 'recipe', 'run', 'e2e_cpu', 'speech_seen', 'speech_held_out', 'blind']
                 + ['transcribe_pocketsphinx_' + group for group in std.objectFields(test_groups)] + ['--runs', runs],
        outputs: [test_groups[group] + '/fid2qid_dev.csv' for group in std.objectFields(test_groups)]
                 + [test_groups[group] + '/transcripts_pocketsphinx.json' for group in std.objectFields(test_groups)]
                 + [first.blind_set],
      },
    } + {
      // cascades B (greedy) and C (the word LM with the weights tune_decoder chose on the development
      // voices) on the test sets: this study's recogniser
      ['test_transcripts_%s_%s' % [cascade, group]]: {
        needs: ['test_sets', 'recogniser'] + (if cascade == 'c' then ['tune_decoder'] else []),
        job: {
          type: 'transcribe',
          folder: test_groups[group],
          output: test_transcripts + '/cascade_%s_%s.json' % [cascade, group],
          recognizer: { type: 'speecht5_ctc', model_name: runs + '/e2e_voices/recogniser/speecht5_ctc' },
          workers: 1,
        } + (if cascade == 'c' then { decoder_from: runs + '/e2e_voices/lm_decoder.json' } else {}),
        outputs: [test_transcripts + '/cascade_%s_%s.json' % [cascade, group]],
      }
      for cascade in ['b', 'c']
      for group in std.objectFields(test_groups)
    } + {
      // stage 3's analysis (study_stage3.jsonnet): the end-to-end model's four seeds, the three
      // cascades, the floor, the ceiling and the listening controls on the test voices
      analysis: {
        needs: ['e2e_finetune', 'test_sets'] + test_transcript_steps,
        job: { type: 'compare', study: 'recipes/e2e_voices/study_stage3.jsonnet', output: runs + '/e2e_voices/analysis', workers: 1,
               runs: runs },
        inputs: ['recipes/e2e_voices/study_stage3.jsonnet'],
        outputs: [runs + '/e2e_voices/analysis/results.json'],
      },
      // the protocol's seed-level test (each seed's held-out F1 minus cascade C's, a one-sample t
      // over the four seeds) in one committed file: only when named
      seed_test: {
        optional: true,
        needs: ['analysis'],
        command: ['python', 'recipes/e2e_voices/seed_test.py', runs + '/e2e_voices/analysis/results.json',
                  '-o', 'recipes/e2e_voices/seed_test.json'],
        outputs: ['recipes/e2e_voices/seed_test.json'],
      },
    } + {
      // the seen-voice cost in one committed file (the pilot's table on its page reads it): only when named
      seen_report: {
        optional: true,
        needs: ['seen_' + lever for lever in std.objectFields(levers)],
        command: ['python', 'recipes/e2e_voices/collect_seen.py'] + [runs + '/e2e_voices/seen_voices_' + lever + '.json' for lever in std.objectFields(levers)]
                 + ['-o', 'recipes/e2e_voices/seen_voices.json'],
        outputs: ['recipes/e2e_voices/seen_voices.json'],
      },
      // stage 2's outcome in one committed file (the page's stage 2 section reads it): only when named
      multitask_report: {
        optional: true,
        needs: ['pilot_multitask', 'pilot_multitask_off'],
        command: ['python', 'recipes/e2e_voices/collect_multitask.py', runs + '/e2e_voices/pilot_multitask',
                  runs + '/e2e_voices/pilot_multitask_off', '-o', 'recipes/e2e_voices/multitask_pilot.json'],
        outputs: ['recipes/e2e_voices/multitask_pilot.json'],
      },
    },
    groups: {
      seen: ['seen_' + lever for lever in std.objectFields(levers)] + ['seen_report'],
      pilot: ['pilot_control', 'pilot_voices', 'pilot_augmentation'],
      multitask: ['pilot_multitask', 'pilot_multitask_off', 'multitask_report'],
      // stage 3's trainings with the steps they need (those already made are skipped)
      study: ['e2e_cpu_inputs', 'speech_development', 'text_bidaf', 'recogniser']
             + ['%s_s%d' % [training, seed] for seed in [1, 2, 3, 4] for training in ['e2e', 'e2e_finetune']],
      cascades: ['e2e_cpu_inputs', 'speech_development', 'recogniser', 'lm', 'tune_decoder'],
      // what the analysis reads besides the trainings (those already made are skipped)
      analysis_inputs: ['e2e_cpu_inputs', 'speech_development', 'recogniser', 'lm', 'tune_decoder', 'test_sets'] + test_transcript_steps,
    },
  }
