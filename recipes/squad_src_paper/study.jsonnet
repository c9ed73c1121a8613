// SQuAD-SRC protocol (Tang et al. 2023, Tables 3-5): spoken SQuAD questions by 24 speakers from six
// countries, answered two ways, with F1 per country and the F1 range (best country minus worst):
// - cascaded: the recordings' ASR transcripts (the SQuAD-format file `allennlp transcribe`
//   writes, each question with its speaker, country, gender and original_question) answered by
//   a text model;
// - end-to-end: the recordings themselves, read by the `squad_src` reader, answered by a model
//   with an audio question encoder.
// The end-to-end set's question noise is taken from the transcripts of the same recordings; the
// text model's drop is measured from its F1 on the clean SQuAD dev questions. The spoken set is
// read with the e2e model's reader settings and the dev questions (its archive's reader names the
// training questions). `allennlp recipe run squad_src_paper` trains the models recipe.jsonnet here
// declares and installs them in the models folder under their model card ids (bidaf-squad,
// e2e-speecht5-squad-src, and the end-to-end model's text-question twin e2e-speecht5-text-squad-src,
// on the typed and transcribed sets: `allennlp models`), transcribes the dev recordings, then runs
//   allennlp compare recipes/squad_src_paper/study.jsonnet -o runs/squad_src_paper/study
// Variables: SRC_TRANSCRIPTS (the transcripts file: no default; recipe.jsonnet's `env` sets it,
// runs/squad_src_paper/transcripts.json under the default runs folder), SRC_DEV (fid2qid_dev.csv of the SQuAD-SRC
// folder, wavs/ beside it), SHARED_DATA (../shared/data).
local e2e = import '../../training_configs/lib/e2e.libsonnet';
local data = std.extVar('SHARED_DATA');
local trainings = (import 'recipe.jsonnet')().trainings;

{
  models: {
    text: { model: trainings.bidaf.card, batch_size: 40 },
    e2e: { model: trainings.e2e.card, input: 'audio', batch_size: 16, order: 1 },
    text_twin: { model: trainings.e2e_text.card, batch_size: 16 },
  },
  test_sets: {
    clean: { data: data + '/squad/dev-v1.1.json', interface: 'clean', kind: 'natural' },
    cascaded: { data: std.extVar('SRC_TRANSCRIPTS'), interface: 'asr', kind: 'natural' },
    spoken: {
      data: std.extVar('SRC_DEV'),
      input: 'audio',
      interface: 'accent',
      kind: 'natural',
      wer_from: 'cascaded',
      dataset_reader: e2e.reader(data + '/squad/{split}-v1.1.json'),
    },
  },
}
