// The study's end-to-end model, first stage (docs/results/e2e_voices.md, "The study (stage 3, after
// the pilot)"): the first study's first stage (recipes/e2e_cpu/e2e_speecht5_ctc.jsonnet: the speech
// encoder frozen, a trained projection, the context side and the span head from the text BiDAF
// bidaf-clean, the first study's three readings of the training split with their perturbation, 416
// batches of 20 an epoch) on the study's recogniser (runs/e2e_voices/recogniser/speecht5_ctc, its
// best epoch), validated on the development voices' reading of the held-out articles, until the
// development F1 has not improved for 3 epochs, at most 15; the best epoch is archived (declared).
// SEED (1 to 4) seeds the run and its perturbation draws. In recipe.jsonnet as the training e2e
// (seeds 1 to 4, group `study`), after the recogniser:
//   allennlp recipe run e2e_voices e2e_s1
local first = import '../e2e_cpu/e2e_speecht5_ctc.jsonnet';
local e2e = import '../../training_configs/lib/e2e.libsonnet';

first + {
  // the study's validation set: the 1,072 held-out questions, each read once by a development voice
  // (the folder's own SQuAD file), unperturbed
  validation_dataset_reader: e2e.reader(several_recordings=true),
  validation_data_path: 'runs/spoken_voices/development/fid2qid_heldout.csv',
  model+: { question_encoder+: { model_name: 'runs/e2e_voices/recogniser/speecht5_ctc' } },
}
