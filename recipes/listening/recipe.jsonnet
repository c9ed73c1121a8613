// The listening test (docs/results/listening.md): the released end-to-end model and the three
// cascades of the e2e_cpu recipe on matched, swapped and silent questions; inference only. From a
// fresh clone after `make install`:
//   allennlp recipe run listening            # the e2e_cpu recipe's spoken sets and transcripts, the study
//   allennlp recipe run listening report     # its committed results.json and tables (only when named)
// The spoken XQuAD folders and their transcripts are the e2e_cpu recipe's (its `speech` and
// `transcribe` steps, which the first step here runs: about 1 h on 2 cores, most of it pocketsphinx).
function(runs='runs')
  local e2e_cpu = (import '../e2e_cpu/recipe.jsonnet')(runs);
  local out = runs + '/listening';
  {
    description: 'the listening test: matched, swapped and silent questions for the end-to-end model and the cascades',
    trainings: {},
    steps: {
      e2e_cpu_sets: {
        command: ['allennlp', 'recipe', 'run', 'e2e_cpu', 'speech_seen', 'speech_held_out', 'transcribe', '--runs', runs],
        outputs: [e2e_cpu.spoken_sets[group] + '/transcripts_' + recognizer + '.json'
                  for group in std.objectFields(e2e_cpu.spoken_sets) for recognizer in e2e_cpu.recognizer_names],
      },
      study: {
        needs: ['e2e_cpu_sets'],
        job: { type: 'compare', study: 'recipes/listening/study.jsonnet', output: out + '/study', workers: 2, runs: runs },
        inputs: ['recipes/listening/study.jsonnet'],
        outputs: [out + '/study/results.json'],
      },
      // writes committed files (results.json, the README's tables): only when named
      report: {
        optional: true,
        needs: ['study'],
        job: { type: 'report', results: out + '/study/results.json', recipe: 'recipes/listening', cards: false,
               pages: ['docs/results/listening.md'] },
        outputs: ['recipes/listening/results.json', 'recipes/listening/pairs.tar.xz'],
      },
    },
  }
