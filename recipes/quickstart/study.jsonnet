// The quickstart study (recipes/quickstart/README.md): the quickstart BiDAF, trained on the
// embedded train.json, on the embedded dev.json (205 questions in 50 paragraphs) typed clean and
// damaged by the keyboard noise source (seed 0) and by the misspelling source. recipes/quickstart/run.sh
// trains the model, installs it in the models folder as `bidaf-quickstart` and runs
//   allennlp compare recipes/quickstart/study.jsonnet -o runs/quickstart/study
// dev.json is a test set only: it validates nothing and chooses nothing (the config validates on
// held-out articles of train.json).
local dev = 'srcframework/data/default/dev.json';

local noisy(noise, interface) = {
  original: dev,
  noise: noise,
  interface: interface,
  kind: 'synthetic',
  generator: noise.type,
};

{
  models: {
    quickstart: { model: 'bidaf-quickstart', batch_size: 32 },
  },
  test_sets: {
    clean: { data: dev, interface: 'clean', kind: 'natural' },
    keyboard: noisy({ type: 'keyboard' }, 'keyboard'),
    misspelling: noisy({ type: 'misspelling' }, 'keyboard'),
  },
}
