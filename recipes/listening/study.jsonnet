// The listening test (docs/results/listening.md, where its analysis was written before it ran):
// does a spoken-question system use the question, or answer from the context alone? Each system
// answers every spoken XQuAD-en question three ways: with its own question (matched), with the
// question of another question of the same paragraph (`swapped_question`: a seeded derangement
// within each paragraph; XQuAD-en's 3 one-question paragraphs are left out) and with no question
// (`silent_question`: the recording's length of digital silence; for a text model the one token
// "?", the `blank` floor). Inference only, on released archives and the e2e_cpu recipe's spoken
// folders and transcripts:
// - e2e:        the released end-to-end model (e2e-speecht5-ctc: seed 1's second stage) on the audio;
// - cascades:   the text BiDAF (bidaf-clean) on the transcripts of the same recordings by
//               pocketsphinx (A), the CTC SpeechT5 greedy (B) and with the word LM (C);
// - reference:  the same BiDAF on the typed questions, matched, swapped and blind.
// Both voice groups of the recipe (seen: the nine training voices; held_out: four US voices that
// no training heard). The comparisons, matched against swapped for each system and group, the
// end-to-end model's matched against silent, and the typed BiDAF's matched against swapped, are
// one Holm family (11 tests). `allennlp recipe run listening`.
local e2e = import '../../training_configs/lib/e2e.libsonnet';
local data = std.extVar('SHARED_DATA');
local xquad = data + '/xquad/xquad.en.json';
local swapped = { type: 'swapped_question', seed: 0 };
local silent = { type: 'silent_question' };
local cascades = { a: 'pocketsphinx', b: 'speecht5_ctc', c: 'speecht5_ctc_lm' };
function(runs='runs')
  local recipe = (import '../e2e_cpu/recipe.jsonnet')(runs);
  local groups = std.objectFields(recipe.spoken_sets);
  local label(group) = std.strReplace(group, '_', '-') + ' voices';

  local transcripts(group, cascade) = {
    data: recipe.spoken_sets[group] + '/transcripts_' + cascades[cascade] + '.json',
    interface: 'asr',
    kind: 'synthetic',
    reference: 'typed',
    order: 1,
  };
  local audio(group) = {
    data: recipe.spoken_sets[group] + '/fid2qid_dev.csv',
    dataset_reader: e2e.reader(),
    input: 'audio',
    interface: 'speech',
    kind: 'synthetic',
    order: 0,
  };
  local controlled(set, control, interface) = set + { control: control, interface: interface, order: set.order + 2 };

  {
    models: {
      e2e: { model: 'e2e-speecht5-ctc', input: 'audio', batch_size: 16, order: 0 },
      bidaf: { model: 'bidaf-clean', batch_size: 40, order: 1 },
    },
    test_sets: {
      typed: { data: xquad, interface: 'clean', kind: 'natural' },
      typed_swapped: controlled(self.typed + { order: 0 }, swapped, 'swapped'),
      typed_blind: controlled(self.typed + { order: 0 }, silent, 'silent'),
    } + {
      ['spoken_' + group]: audio(group)
      for group in groups
    } + {
      ['spoken_%s_%s' % [group, control]]: controlled(audio(group), { swapped: swapped, silent: silent }[control], control)
      for group in groups
      for control in ['swapped', 'silent']
    } + {
      ['cascade_%s_%s' % [cascade, group]]: transcripts(group, cascade)
      for cascade in std.objectFields(cascades)
      for group in groups
    } + {
      ['cascade_%s_%s_swapped' % [cascade, group]]: controlled(transcripts(group, cascade), swapped, 'swapped')
      for cascade in std.objectFields(cascades)
      for group in groups
    },
    comparisons: {
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
      for cascade in std.objectFields(cascades)
      for group in groups
    } + {
      typed_listening: {
        first: { model: 'bidaf', set: 'typed' },
        second: { model: 'bidaf', set: 'typed_swapped' },
        label: 'text BiDAF, typed questions, matched against swapped',
      },
    },
  }
