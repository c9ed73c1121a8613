// Stage 3's analysis (docs/results/e2e_voices.md: "The study (stage 3)", "Outcomes and bars"), on
// the first study's test sets: spoken XQuAD-en read by the nine training voices (seen) and by the
// four registered held-out voices (held_out, the primary group), 1,190 questions each.
// - e2e:        this study's end-to-end model, one archive a seed (its second stage, seeds 1 to 4), on
//               the audio;
// - cascade A:  pocketsphinx's transcripts (the first study's), answered by the text BiDAF the
//               end-to-end model's context side started from (bidaf-clean);
// - cascade B:  this study's recogniser, greedy, answered by the same BiDAF;
// - cascade C:  the same recogniser with the word trigram LM, its weights chosen on the development
//               voices (tune_decoder), answered by the same BiDAF;
// - floor:      the same BiDAF on question-blind XQuAD (every question "?"; the first study's `blind`);
// - ceiling:    the same BiDAF on the typed questions.
// The listening controls of the listening test for every system: each question answered with
// another question of its paragraph (`swapped_question`, seed 0) and, for the end-to-end model, with
// the recording's length of silence (`silent_question`). The comparisons (one Holm family): the
// end-to-end model against cascades A, B and C in each group, and the listening test's eleven
// (matched against swapped for each system and group, the end-to-end model's matched against
// silent, the typed BiDAF's matched against swapped). The seed-level test of the protocol reads the
// end-to-end model's F1 by seed (`f1_by_seed`). Test sets choose nothing here: every weight and
// epoch was fixed on the development voices before this file was written.
// `allennlp recipe run e2e_voices analysis` runs it once `analysis_inputs` and every training are done.
local e2e = import '../../training_configs/lib/e2e.libsonnet';
local data = std.extVar('SHARED_DATA');
local xquad = data + '/xquad/xquad.en.json';
local recipe = import '../recipe.libsonnet';
local swapped = { type: 'swapped_question', seed: 0 };
local silent = { type: 'silent_question' };

function(runs='runs')
  local made = (import 'recipe.jsonnet')(runs);
  local first = (import '../e2e_cpu/recipe.jsonnet')(runs);
  local groups = std.objectFields(first.spoken_sets);
  local label(group) = std.strReplace(group, '_', '-') + ' voices';
  local transcripts_file(cascade, group) =
    if cascade == 'a' then first.spoken_sets[group] + '/transcripts_pocketsphinx.json'
    else runs + '/e2e_voices/test_transcripts/cascade_%s_%s.json' % [cascade, group];

  local transcripts(cascade, group) = {
    data: transcripts_file(cascade, group),
    interface: 'asr',
    kind: 'synthetic',
    reference: 'typed',
    order: if cascade == 'a' then 1 else 2,
  };
  // the end-to-end model reads a spoken folder with its own copy of the questions (FOLDER/squad.json);
  // its question noise is described by cascade B's WER on the same recordings
  local audio(group) = {
    data: first.spoken_sets[group] + '/fid2qid_dev.csv',
    dataset_reader: e2e.reader(),
    input: 'audio',
    interface: 'speech',
    kind: 'synthetic',
    wer_from: 'cascade_b_' + group,
    order: 3,
  };
  local controlled(set, control, interface) = set + { control: control, interface: interface, order: set.order + 2 };

  {
    models: {
      bidaf: { model: 'bidaf-clean', batch_size: 40 },
      e2e: { archives: recipe.archives(made.trainings.e2e_finetune), input: 'audio', batch_size: 16, order: 1 },
    },
    test_sets: {
      typed: { data: xquad, interface: 'clean', kind: 'natural' },
      typed_swapped: controlled(self.typed + { order: 0 }, swapped, 'swapped'),
      blind: { data: first.blind_set, original: xquad, interface: 'blind', kind: 'synthetic', order: 4 },
    } + {
      ['spoken_' + group]: audio(group)
      for group in groups
    } + {
      ['spoken_%s_%s' % [group, control]]: controlled(audio(group), { swapped: swapped, silent: silent }[control], control)
      for group in groups
      for control in ['swapped', 'silent']
    } + {
      ['cascade_%s_%s' % [cascade, group]]: transcripts(cascade, group)
      for cascade in ['a', 'b', 'c']
      for group in groups
    } + {
      ['cascade_%s_%s_swapped' % [cascade, group]]: controlled(transcripts(cascade, group), swapped, 'swapped')
      for cascade in ['a', 'b', 'c']
      for group in groups
    },
    comparisons: {
      ['e2e_vs_cascade_%s_%s' % [cascade, group]]: {
        first: { model: 'e2e', set: 'spoken_' + group },
        second: { model: 'bidaf', set: 'cascade_%s_%s' % [cascade, group] },
        label: 'end to end against cascade %s, %s' % [std.asciiUpper(cascade), label(group)],
      }
      for cascade in ['a', 'b', 'c']
      for group in groups
    } + {
      ['e2e_listening_' + group]: {
        first: { model: 'e2e', set: 'spoken_' + group },
        second: { model: 'e2e', set: 'spoken_%s_swapped' % group },
        label: 'end to end, matched against swapped, ' + label(group),
      }
      for group in groups
    } + {
      ['e2e_silence_' + group]: {
        first: { model: 'e2e', set: 'spoken_' + group },
        second: { model: 'e2e', set: 'spoken_%s_silent' % group },
        label: 'end to end, matched against silent, ' + label(group),
      }
      for group in groups
    } + {
      ['cascade_%s_listening_%s' % [cascade, group]]: {
        first: { model: 'bidaf', set: 'cascade_%s_%s' % [cascade, group] },
        second: { model: 'bidaf', set: 'cascade_%s_%s_swapped' % [cascade, group] },
        label: 'cascade %s, matched against swapped, %s' % [std.asciiUpper(cascade), label(group)],
      }
      for cascade in ['a', 'b', 'c']
      for group in groups
    } + {
      typed_listening: {
        first: { model: 'bidaf', set: 'typed' },
        second: { model: 'bidaf', set: 'typed_swapped' },
        label: 'text BiDAF, typed questions, matched against swapped',
      },
    },
  }
