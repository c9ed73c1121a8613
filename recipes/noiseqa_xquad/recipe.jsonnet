// The NoiseQA study on XQuAD-en (README.md here). From a fresh clone after `make install`:
//   allennlp recipe run noiseqa_xquad                   # the CPU-scale BiDAF, the study; `report` when named
//   allennlp recipe run noiseqa_xquad transformer study_full
//                                                       # MiniLM QA too, and our flite -> pocketsphinx set
// A stopped training resumes from its last epoch, a stopped study from its cached pairs.
local xquad = std.extVar('SHARED_DATA') + '/xquad/xquad.en.json';
// our noise sources' sets of XQuAD-en (seed 0), by name: the `--noise` of `allennlp noise`
local noises = {
  keyboard: 'keyboard',
  back_translation: 'back_translation',
  // flite kal16 -> pocketsphinx (about 25 minutes of one core for 1,190 questions, once)
  asr: std.manifestJsonMinified({ type: 'asr', synthesizer: { type: 'flite', voice: 'kal16' }, recognizer: { type: 'pocketsphinx' } }),
};

function(runs='runs')
  local sets = { [name]: runs + '/noiseqa_xquad/sets/ours_' + name + '.json' for name in std.objectFields(noises) };
  {
    description: 'NoiseQA (Ravichander et al. 2021, Table 4) on XQuAD-en: the CPU-scale BiDAF (and MiniLM QA)',
    trainings: {
      bidaf: { config: 'training_configs/bidaf_cpu_scale.jsonnet', folder: runs + '/bidaf_cpu_scale', card: 'bidaf-cpu-scale' },
      // about 80 min on 2 cores: named, or needed by a step named
      transformer: {
        config: 'training_configs/transformer_qa_cpu_scale.jsonnet',
        folder: runs + '/transformer_qa_cpu_scale',
        card: 'minilm-qa-cpu-scale',
        optional: true,
      },
    },
    steps: {
      // the sets of our noise sources the studies read; the ASR set only for study_full
      ['noise_' + name]: {
        command: ['allennlp', 'noise', xquad, sets[name], '--noise', noises[name], '--workers', '2', '--no-progress'],
        outputs: [sets[name]],
      } + (if name == 'asr' then { optional: true } else {})
      for name in std.objectFields(noises)
    } + {
      study: {
        needs: ['bidaf', 'noise_keyboard', 'noise_back_translation'],
        job: { type: 'compare', study: 'recipes/noiseqa_xquad/study.jsonnet', output: runs + '/noiseqa_xquad/study', workers: 2,
               runs: runs },
        inputs: ['recipes/noiseqa_xquad/study.jsonnet'],
        outputs: [runs + '/noiseqa_xquad/study/results.json'],
      },
      // the study with MiniLM QA and our ASR set (about 25 min of one core to make, once)
      study_full: {
        needs: ['bidaf', 'transformer', 'noise_keyboard', 'noise_back_translation', 'noise_asr'],
        job: { type: 'compare', study: 'recipes/noiseqa_xquad/study_full.jsonnet', output: runs + '/noiseqa_xquad/study_full', workers: 2,
               runs: runs },
        inputs: ['recipes/noiseqa_xquad/study.jsonnet', 'recipes/noiseqa_xquad/study_full.jsonnet'],
        outputs: [runs + '/noiseqa_xquad/study_full/results.json'],
        optional: true,
      },
      // writes committed files (results.json, the README's tables): only when named
      report: {
        optional: true,
        needs: ['study'],
        job: { type: 'report', results: runs + '/noiseqa_xquad/study/results.json', recipe: 'recipes/noiseqa_xquad' },
        outputs: ['recipes/noiseqa_xquad/results.json', 'recipes/noiseqa_xquad/pairs.tar.xz'],
      },
    },
    // the files of our noise sources' sets, which the studies read
    noisy_sets:: sets,
  }
