// The quickstart (README.md here): a small BiDAF trained on the embedded data, installed and named
// by its model card id, and compared on clean and keyboard-damaged questions. From a fresh clone
// after `make install`:
//   allennlp recipe run quickstart                 # train, study; `report` when named
//   allennlp recipe run quickstart quickstart --dry-run # what would run, and why
//   allennlp recipe run quickstart -o '{"trainer.num_epochs": 1}'   # a smoke run
//   allennlp recipe run quickstart release         # its archive, slimmed, into models/ (commit it)
function(runs='runs')
  local dev = 'srcframework/data/default/dev.json';
  local sets = runs + '/quickstart/sets';
  // a noisy copy of dev.json (seed 0), as the study reads it
  local noisy(name, noise) = {
    command: ['allennlp', 'noise', dev, sets + '/' + name + '.json', '--noise', noise, '--no-progress'],
    outputs: [sets + '/' + name + '.json'],
  };
  {
    description: 'a small BiDAF on the embedded data, on clean and keyboard-damaged questions',
    trainings: {
      quickstart: {
        config: 'training_configs/quickstart.jsonnet',
        folder: runs + '/quickstart',
        card: 'bidaf-quickstart',
        // one torch thread: the thread count changes the weights (docs/install.md), and the released
        // archive and results.json come from a one-thread training
        threads: 1,
      },
    },
    steps: {
      // the study's noisy sets: keyboard typos and human misspellings of dev.json's questions
      keyboard: noisy('keyboard', 'keyboard'),
      misspelling: noisy('misspelling', 'misspelling'),
      study: {
        needs: ['quickstart', 'keyboard', 'misspelling'],
        job: { type: 'compare', study: 'recipes/quickstart/study.jsonnet', output: runs + '/quickstart/study', runs: runs },
        inputs: ['recipes/quickstart/study.jsonnet'],
        outputs: [runs + '/quickstart/study/results.json'],
      },
      // a slim copy of the archive in models/ (`allennlp models release`): named, never by default
      release: {
        needs: ['quickstart'],
        job: { type: 'release', card: 'bidaf-quickstart', archive: runs + '/quickstart/model.tar.gz' },
        outputs: ['models/bidaf-quickstart.tar.gz'],
        optional: true,
      },
      // writes committed files (results.json, the README's tables): only when named
      report: {
        optional: true,
        needs: ['study'],
        job: { type: 'report', results: runs + '/quickstart/study/results.json', recipe: 'recipes/quickstart' },
        outputs: ['recipes/quickstart/results.json', 'recipes/quickstart/pairs.tar.xz'],
      },
    },
    // what the study reads: the test file and the noisy sets the steps above make
    dev:: dev,
    noisy_sets:: { [name]: sets + '/' + name + '.json' for name in ['keyboard', 'misspelling'] },
  }
