// The NoiseQA study (study.jsonnet here) with MiniLM QA (minilm-qa-cpu-scale) and our flite kal16
// -> pocketsphinx ASR set (about 25 minutes of one core for 1,190 questions, once; --workers N
// splits it). `allennlp recipe run noiseqa_xquad transformer study_full` trains, installs and runs it.
local study = import 'study.jsonnet';
local trainings = (import 'recipe.jsonnet')().trainings;

study + {
  models+: { transformer: { model: trainings.transformer.card, batch_size: 16 } },
  test_sets+: {
    ours_asr: study.our_set({
      type: 'asr',
      synthesizer: { type: 'flite', voice: 'kal16' },
      recognizer: { type: 'pocketsphinx' },
    }, 'asr'),
  },
}
