// The pilot's outcome (docs/results/e2e_voices.md, "The pilot"): the development voices' reading
// of the 1,072 held-out-article questions transcribed greedily by each lever's recogniser (and by
// the released speecht5-ctc-small it continued from, `start`), then answered by the text BiDAF
// (bidaf-clean, which never trained on the held-out articles). The question-noise table gives each
// recogniser's WER and CER against the typed questions (the pilot's outcome); the F1 table the
// cascade's F1 on the development set (descriptive). No test voice is read.
// `allennlp recipe run e2e_voices pilot_study pilot_report`.
local levers = ['start', 'control', 'voices', 'augmentation'];

function(runs='runs')
  local development = runs + '/spoken_voices/development/';
  {
  models: {
    bidaf: { model: 'bidaf-clean', batch_size: 40 },
  },
  test_sets: {
    typed: { data: runs + '/data/validation_articles.json', interface: 'clean', kind: 'natural' },
  } + {
    ['transcripts_' + lever]: {
      data: development + 'transcripts_' + lever + '.json',
      interface: 'asr',
      kind: 'synthetic',
      reference: 'typed',
      order: std.length(std.find(lever, levers)),
    }
    for lever in levers
  },
}
