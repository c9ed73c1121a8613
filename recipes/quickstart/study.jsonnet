// The quickstart study (recipes/quickstart/README.md): the quickstart BiDAF, trained on the
// embedded train.json, on the embedded dev.json (205 questions in 50 paragraphs) typed clean and
// damaged by the keyboard noise source (seed 0) and by the misspelling source. `allennlp recipe run
// quickstart` trains the model (recipe.jsonnet here), installs it in the models folder under its
// card id and runs
//   allennlp compare recipes/quickstart/study.jsonnet -o runs/quickstart/study
// dev.json is a test set only: it validates nothing and chooses nothing (the config validates on
// held-out articles of train.json).
local dev = 'srcframework/data/default/dev.json';
local trainings = (import 'recipe.jsonnet')().trainings;

local noisy(noise, interface) = {
  original: dev,
  noise: noise,
  interface: interface,
  kind: 'synthetic',
  generator: noise.type,
};

{
  models: {
    quickstart: { model: trainings.quickstart.card, batch_size: 32 },
  },
  test_sets: {
    clean: { data: dev, interface: 'clean', kind: 'natural' },
    keyboard: noisy({ type: 'keyboard' }, 'keyboard'),
    misspelling: noisy({ type: 'misspelling' }, 'keyboard'),
  },
}
