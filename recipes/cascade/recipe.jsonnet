// The cascade on XQuAD-en (README.md here): the questions read by flite kal16 and transcribed by
// pocketsphinx, answered by text QA models trained on typed questions. From a fresh clone after
// `make install`:
//   allennlp recipe run cascade                 # speech, transcripts, the three models, study; `report` when named
//   allennlp recipe run cascade minilm_2400     # one model
// The CPU-scale BiDAF and MiniLM QA are the NoiseQA recipe's (declared there, taken from there).
local data = std.extVar('SHARED_DATA');
local noiseqa = import '../noiseqa_xquad/recipe.jsonnet';

function(runs='runs')
  local out = runs + '/cascade';
  local spoken = out + '/xquad_kal16';
  local shared = noiseqa(runs).trainings;
  {
    description: 'spoken XQuAD-en (flite kal16 -> pocketsphinx) answered by text QA models',
    trainings: {
      bidaf: shared.bidaf,
      minilm: shared.transformer + { optional: false },
      // transformer_qa_cpu_scale on 2,400 of its questions (one epoch)
      minilm_2400: {
        config: 'recipes/cascade/transformer_qa_cpu_scale_2400.jsonnet',
        folder: out + '/transformer_qa_cpu_scale_2400',
        card: 'minilm-qa-cpu-scale-2400',
      },
    },
    steps: {
      speech: {
        command: ['allennlp', 'synthesize-speech', data + '/xquad/xquad.en.json', spoken, '--voices', 'flite:kal16', '--workers', '2'],
        outputs: [spoken + '/fid2qid_dev.csv'],
      },
      transcribe: {
        needs: ['speech'],
        job: { type: 'transcribe', folder: spoken, output: spoken + '/transcripts_pocketsphinx.json',
               recognizer: { type: 'pocketsphinx' }, workers: 2 },
        outputs: [spoken + '/transcripts_pocketsphinx.json'],
      },
      study: {
        needs: ['transcribe', 'bidaf', 'minilm', 'minilm_2400'],
        job: { type: 'compare', study: 'recipes/cascade/study.jsonnet', output: out + '/study', workers: 2 },
        inputs: ['recipes/cascade/study.jsonnet'],
        outputs: [out + '/study/results.json'],
      },
      // writes committed files (results.json, the README's tables): only when named
      report: {
        optional: true,
        needs: ['study'],
        job: { type: 'report', results: out + '/study/results.json', recipe: 'recipes/cascade' },
        outputs: ['recipes/cascade/results.json', 'recipes/cascade/pairs.tar.xz'],
      },
    },
  }
