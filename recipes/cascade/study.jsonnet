// The cascade on XQuAD-en (recipes/cascade/README.md): the 1,190 questions read by flite kal16 and
// transcribed by pocketsphinx (its default search), answered by text QA models trained on typed
// questions, against the same models on the typed questions. `allennlp recipe run cascade` makes
// the spoken folder and the transcripts, trains the models its recipe.jsonnet declares and
// installs them in the models folder under their model card ids (`allennlp models`), then runs
//   allennlp compare recipes/cascade/study.jsonnet -o runs/cascade/study
// Variables: SHARED_DATA (../shared/data).
local data = std.extVar('SHARED_DATA');
local xquad = data + '/xquad/xquad.en.json';
local trainings = (import 'recipe.jsonnet')().trainings;

{
  models: {
    // training_configs/bidaf_cpu_scale.jsonnet (3 epochs; the model the NoiseQA recipe uses too)
    bidaf: { model: trainings.bidaf.card, batch_size: 40 },
    // training_configs/transformer_qa_cpu_scale.jsonnet (one epoch on the training articles)
    minilm: { model: trainings.minilm.card, batch_size: 16, order: 1 },
    // transformer_qa_cpu_scale_2400.jsonnet here (one epoch on 2,400 of their questions)
    minilm_2400: { model: trainings.minilm_2400.card, batch_size: 16, order: 2 },
  },
  test_sets: {
    typed: { data: xquad, interface: 'clean', kind: 'natural' },
    // `allennlp transcribe` output: each question keeps its original_question, so the study gives
    // the transcripts' WER too
    spoken_kal16: {
      data: 'runs/cascade/xquad_kal16/transcripts_pocketsphinx.json',
      interface: 'asr',
      kind: 'synthetic',
      generator: 'asr',
      reference: 'typed',
      order: 1,
    },
  },
}
