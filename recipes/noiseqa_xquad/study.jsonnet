// NoiseQA protocol (Ravichander et al. 2021, Table 4) on the 1,190 XQuAD-en questions: each model
// on the clean questions, on NoiseQA's synthetic challenge sets and on sets that our own noise
// sources make from the clean file (`allennlp noise`: the recipe's noise_* steps write them under
// RUNS/noiseqa_xquad/sets; this study is a function of the recipe's `runs`). Run from the
// repository root:
//   allennlp compare recipes/noiseqa_xquad/study.jsonnet -o runs/noiseqa_xquad/study
// (--bootstrap 1000 --permutations 10000 --seed 0 --examples 5 are the defaults of the intervals,
// paired tests and example flips; they are computed from the cached predictions, so changing them
// reruns no pair. The bootstrap resamples XQuAD's 240 paragraphs, each with all its questions.)
// The models are named by their model card's id, as recipe.jsonnet here declares them: the
// archives the models folder holds (`allennlp models`), which `allennlp recipe run noiseqa_xquad`
// installs. study_full.jsonnet adds MiniLM QA and our flite -> pocketsphinx ASR set.
// Variables: SHARED_DATA (../shared/data).
function(runs='runs')
local data = std.extVar('SHARED_DATA');
local xquad = data + '/xquad/xquad.en.json';
local noiseqa = data + '/noiseqa/synthetic/';
local made = (import 'recipe.jsonnet')(runs);
local trainings = made.trainings;

// A set of NoiseQA's: questions noised by them, paired with the clean ones by id.
local noiseqa_set(file, interface) = {
  data: noiseqa + file,
  original: xquad,
  interface: interface,
  kind: 'synthetic',
  generator: 'noiseqa_' + interface,
  order: 1,
};

// A set our noise source made from the clean questions (`name`: the recipe's noise_NAME step).
local our_set(name, interface) = {
  data: made.noisy_sets[name],
  original: xquad,
  interface: interface,
  kind: 'synthetic',
  generator: name,
  order: 2,
};

{
  models: {
    bidaf: { model: trainings.bidaf.card, batch_size: 40 },
  },
  test_sets: {
    clean: { data: xquad, interface: 'clean', kind: 'natural' },
    noiseqa_asr: noiseqa_set('xquad-asr-synthetic.json', 'asr'),
    noiseqa_keyboard: noiseqa_set('xquad-keyboard-synthetic.json', 'keyboard'),
    noiseqa_translation: noiseqa_set('xquad-translation-synthetic.json', 'translation'),
    ours_keyboard: our_set('keyboard', 'keyboard'),
    ours_back_translation: our_set('back_translation', 'translation'),
  },
  // for study_full.jsonnet
  our_set:: our_set,
}
