// The NoiseQA study (study.jsonnet here) with MiniLM QA (minilm-qa-cpu-scale) and our flite kal16
// -> pocketsphinx ASR set (about 25 minutes of one core for 1,190 questions, once; --workers N
// splits it). `allennlp recipe run noiseqa_xquad transformer study_full` trains, installs, makes
// the ASR set (the recipe's noise_asr step) and runs it. A function of the recipe's `runs`.
function(runs='runs')
local study = (import 'study.jsonnet')(runs);
local trainings = (import 'recipe.jsonnet')(runs).trainings;

study + {
  models+: { transformer: { model: trainings.transformer.card, batch_size: 16 } },
  test_sets+: {
    ours_asr: study.our_set('asr', 'asr'),
  },
}
