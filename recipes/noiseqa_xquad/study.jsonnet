// NoiseQA protocol (Ravichander et al. 2021, Table 4) on the 1,190 XQuAD-en questions: each model
// on the clean questions, on NoiseQA's synthetic challenge sets and on sets that our own noise
// sources generate from the clean file (cached under OUT_DIR/sets). Run from the repository root:
//   allennlp compare recipes/noiseqa_xquad/study.jsonnet -o runs/noiseqa_xquad/study
// (--bootstrap 1000 --permutations 10000 --seed 0 --examples 5 are the defaults of the intervals,
// paired tests and example flips; they are computed from the cached predictions, so changing them
// reruns no pair. The bootstrap resamples XQuAD's 240 paragraphs, each with all its questions.)
// The models are named by their model card's id, as recipe.jsonnet here declares them: the
// archives the models folder holds (`allennlp models`), which `allennlp recipe run noiseqa_xquad`
// installs. study_full.jsonnet adds MiniLM QA and our flite -> pocketsphinx ASR set.
// Variables: SHARED_DATA (../shared/data).
local data = std.extVar('SHARED_DATA');
local xquad = data + '/xquad/xquad.en.json';
local noiseqa = data + '/noiseqa/synthetic/';
local trainings = (import 'recipe.jsonnet')().trainings;

// A set of NoiseQA's: questions noised by them, paired with the clean ones by id.
local noiseqa_set(file, interface) = {
  data: noiseqa + file,
  original: xquad,
  interface: interface,
  kind: 'synthetic',
  generator: 'noiseqa_' + interface,
  order: 1,
};

// A set our noise source generates from the clean questions.
local our_set(noise, interface) = {
  original: xquad,
  noise: noise,
  interface: interface,
  kind: 'synthetic',
  generator: noise.type,
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
    ours_keyboard: our_set({ type: 'keyboard' }, 'keyboard'),
    ours_back_translation: our_set({ type: 'back_translation' }, 'translation'),
  },
  // for study_full.jsonnet
  our_set:: our_set,
}
