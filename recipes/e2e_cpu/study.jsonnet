// End to end against cascades on spoken XQuAD-en (1,190 questions), everything trained on this
// machine's CPUs (recipes/e2e_cpu/README.md):
// - e2e:          the `span_qa` model of recipes/e2e_cpu/e2e_speecht5_ctc_finetune.jsonnet (the
//                 small SpeechT5 pretrained here with CTC + BiDAF context encoder, fine-tuned
//                 together) on the audio;
// - cascade A:    pocketsphinx transcripts (its default search, as in the robust-training
//                 study's spoken set; the protocol's amendment 2) of the same audio, answered by
//                 the text BiDAF the e2e model's context side started from (the card
//                 bidaf-clean: the robust-training recipe's clean twin, seed 1);
// - cascade B:    the speecht5_ctc recognizer's transcripts (the same small SpeechT5 and its CTC
//                 layer, greedy decoding), answered by the same BiDAF;
// - cascade C:    the same recognizer with the `lexicon_beam` decoder (a word trigram LM of the
//                 training questions; its weights chosen on the held-out articles' recordings),
//                 answered by the same BiDAF;
// - floor:        the same BiDAF on question-blind XQuAD (the `blank` noise source: every
//                 question "?", since the readers refuse empty questions), which answers from the
//                 context alone; the recipe's `blind` step makes it (`allennlp noise`);
// - ceiling:      the same BiDAF on the typed questions.
// Two voice groups (srcframework.speech.voices): `seen` (the nine training voices, dealt over the
// questions) and `held_out` (flite rms and three Festival voices, an engine no training voice
// uses, dealt over the questions). Comparisons across sets pair the same questions: the e2e model
// against cascades A, B and C in each group, and the e2e model and cascade B on seen against
// held-out voices (one Holm family). `allennlp recipe run e2e_cpu` makes the spoken folders and
// the transcripts, trains the models and installs them in the models folder under their model
// card ids (bidaf-clean; e2e-speecht5-ctc, seed 1: `allennlp models`), then runs
//   allennlp compare recipes/e2e_cpu/study.jsonnet -o runs/e2e_cpu/study
// The models, the spoken folders, the recognisers and the blind set are those recipe.jsonnet here
// declares (the end-to-end model: one archive a seed), under the recipe's `runs` (this study is a
// function of it; default runs). Variables: SHARED_DATA (../shared/data).
function(runs='runs')
local e2e = import '../../training_configs/lib/e2e.libsonnet';
local data = std.extVar('SHARED_DATA');
local xquad = data + '/xquad/xquad.en.json';
local made = (import 'recipe.jsonnet')(runs);
local voice_groups = made.spoken_sets;
local recipe = import '../recipe.libsonnet';
local trainings = made.trainings;
local text = (import '../robust_training/recipe.jsonnet')(runs).trainings.bidaf_clean;
// cascades A, B and C: the recipe's recognisers (pocketsphinx, speecht5_ctc, speecht5_ctc_lm)
local cascades = { a: made.recognizer_names[0], b: made.recognizer_names[1], c: made.recognizer_names[2] };

// transcripts of one voice group by one recognizer (`allennlp transcribe` output: each question
// carries its original_question, speaker, country and gender)
local cascade(folder, recognizer, order) = {
  data: folder + '/transcripts_' + recognizer + '.json',
  interface: 'asr',
  kind: 'synthetic',
  reference: 'typed',
  order: order,
};

// the e2e model's archive reads its training split's questions; a spoken XQuAD folder is read
// with its own copy of the questions (FOLDER/squad.json, written by synthesize-speech)
local audio(folder, wer_from, order) = {
  data: folder + '/fid2qid_dev.csv',
  dataset_reader: e2e.reader(),
  input: 'audio',
  interface: 'speech',
  kind: 'synthetic',
  wer_from: wer_from,
  order: order,
};

{
  models: {
    bidaf: { model: text.card, batch_size: 40 },
    // one archive per seed of the end-to-end stages (the speech encoder and the text BiDAF they
    // start from are the same for every seed)
    e2e: { archives: recipe.archives(trainings.e2e_finetune), input: 'audio', batch_size: 16, order: 1 },
  },
  test_sets: {
    typed: { data: xquad, interface: 'clean', kind: 'natural' },
    blind: { data: made.blind_set, original: xquad, interface: 'blind', kind: 'synthetic', order: 4 },
  } + {
    ['cascade_%s_%s' % [letter, group]]: cascade(voice_groups[group], cascades[letter], if letter == 'a' then 1 else 2)
    for letter in std.objectFields(cascades)
    for group in std.objectFields(voice_groups)
  } + {
    // the e2e model's question noise is described by cascade B's WER on the same recordings
    ['spoken_' + group]: audio(voice_groups[group], 'cascade_b_' + group, 3)
    for group in std.objectFields(voice_groups)
  },
  comparisons: {
    ['e2e_vs_cascade_' + cascade + '_' + group]: {
      first: { model: 'e2e', set: 'spoken_' + group },
      second: { model: 'bidaf', set: 'cascade_' + cascade + '_' + group },
      label: 'end to end against cascade ' + std.asciiUpper(cascade) + ', ' + std.strReplace(group, '_', '-') + ' voices',
    }
    for cascade in ['a', 'b', 'c']
    for group in std.objectFields(voice_groups)
  } + {
    e2e_seen_vs_held_out: {
      first: { model: 'e2e', set: 'spoken_seen' },
      second: { model: 'e2e', set: 'spoken_held_out' },
      label: 'end to end: seen against held-out voices',
    },
    cascade_b_seen_vs_held_out: {
      first: { model: 'bidaf', set: 'cascade_b_seen' },
      second: { model: 'bidaf', set: 'cascade_b_held_out' },
      label: 'cascade B: seen against held-out voices',
    },
  },
}
