// The cascade on XQuAD-en (recipes/cascade/README.md): the 1,190 questions read by flite kal16 and
// transcribed by pocketsphinx (its default search), answered by text QA models trained on typed
// questions, against the same models on the typed questions. recipes/cascade/run.sh makes the
// spoken folder, the transcripts and the archives, then runs
//   allennlp compare recipes/cascade/study.jsonnet -o runs/cascade/study
// Variables: CASCADE_MODELS (default 'bidaf,minilm,minilm_2400': which of the archives below),
// SHARED_DATA (../shared/data).
local data = std.extVar('SHARED_DATA');
local xquad = data + '/xquad/xquad.en.json';
local archives = {
  // training_configs/bidaf_cpu_scale.jsonnet (3 epochs; the archive the NoiseQA recipe uses too)
  bidaf: { archive: 'runs/bidaf_cpu_scale/model.tar.gz', batch_size: 40 },
  // training_configs/transformer_qa_cpu_scale.jsonnet (one epoch on the 9,380 questions)
  minilm: { archive: 'runs/transformer_qa_cpu_scale/model.tar.gz', batch_size: 16, order: 1 },
  // transformer_qa_cpu_scale_2400.jsonnet here (one epoch on 2,400 of them)
  minilm_2400: { archive: 'runs/cascade/transformer_qa_cpu_scale_2400/model.tar.gz', batch_size: 16, order: 2 },
};
local model(name) =
  if std.objectHas(archives, name) then archives[name]
  else error 'CASCADE_MODELS: unknown model ' + name + '; the models are ' + std.join(', ', std.objectFields(archives));

{
  models: { [name]: model(name) for name in std.split(std.extVar('CASCADE_MODELS'), ',') },
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
