// The quickstart study (recipes/quickstart/README.md): the quickstart BiDAF, trained on the
// embedded train.json, on the embedded dev.json (205 questions in 50 paragraphs) typed clean and
// damaged by the keyboard noise source (seed 0) and by the misspelling source. `allennlp recipe run
// quickstart` trains the model (recipe.jsonnet here), installs it in the models folder under its
// card id, makes the noisy sets (`allennlp noise`, the steps keyboard and misspelling) and runs
//   allennlp compare recipes/quickstart/study.jsonnet -o runs/quickstart/study
// dev.json is a test set only: it validates nothing and chooses nothing (the config validates on
// held-out articles of train.json). A function of the recipe's `runs`, where its sets are.
function(runs='runs')
  local recipe = (import 'recipe.jsonnet')(runs);

  local noisy(name, interface, generator) = {
    data: recipe.noisy_sets[name],
    original: recipe.dev,
    interface: interface,
    kind: 'synthetic',
    generator: generator,
  };

  {
    models: {
      quickstart: { model: recipe.trainings.quickstart.card, batch_size: 32 },
    },
    test_sets: {
      clean: { data: recipe.dev, interface: 'clean', kind: 'natural' },
      keyboard: noisy('keyboard', 'keyboard', 'keyboard'),
      misspelling: noisy('misspelling', 'keyboard', 'misspelling'),
    },
  }
