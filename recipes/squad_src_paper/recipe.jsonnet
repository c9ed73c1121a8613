// SQuAD-SRC at paper scale (README.md here): cascaded against end-to-end on the real recordings,
// for a machine with a GPU, the SQuAD-SRC audio (wavs/ beside the id maps in SHARED_DATA/squad_src)
// and the SpeechT5 weights. From the repository root, after `make install`:
//   allennlp recipe run squad_src_paper -o '{"trainer.cuda_device": 0}'   # every step but `check`
//   allennlp recipe run squad_src_paper check       # on a CPU, no downloads: the e2e model learns 300 synthesized questions
// A training resumes from its last epoch, the transcription from its journal, the study from its
// cached pairs.
local data = std.extVar('SHARED_DATA');
local src = data + '/squad_src';

function(runs='runs')
  local out = runs + '/squad_src_paper';
  local maps = out + '/maps';
  local transcripts = out + '/transcripts.json';
  local check = out + '/check';
  {
    description: 'SQuAD-SRC (Tang et al. 2023): cascaded against end-to-end on the real recordings',
    // the configs and the study read these
    env: {
      SRC_TRAIN: maps + '/fid2qid_train.csv',
      SRC_HELDOUT: maps + '/fid2qid_heldout.csv',
      SRC_DEV: src + '/fid2qid_dev.csv',
      SRC_TRANSCRIPTS: transcripts,
    },
    trainings: {
      // the cascade's QA model: the text BiDAF on SQuAD v1.1 train
      bidaf: { config: 'training_configs/bidaf.jsonnet', folder: out + '/bidaf', card: 'bidaf-squad' },
      e2e: { config: 'recipes/squad_src_paper/e2e_speecht5.jsonnet', folder: out + '/e2e_speecht5', card: 'e2e-speecht5-squad-src',
             depends_on: ['split'] },
      // the end-to-end model's text-question twin
      e2e_text: { config: 'recipes/squad_src_paper/e2e_speecht5_text.jsonnet', folder: out + '/e2e_speecht5_text',
                  card: 'e2e-speecht5-text-squad-src' },
      // the learning check: a tiny random SpeechT5 trained and validated on 300 synthesized questions
      check_overfit: {
        config: 'recipes/squad_src_paper/e2e_speecht5_overfit.jsonnet',
        folder: check + '/e2e_overfit',
        depends_on: ['check_speech', 'check_model'],
        env: { SPEECHT5: check + '/tiny_speecht5', SRC_TRAIN: check + '/src300/fid2qid_dev.csv', SRC_SQUAD_FILE: '' },
        optional: true,
      },
    },
    steps: {
      // training and held-out maps of the training recordings (the articles the text configs hold out validate)
      split: {
        command: ['python', 'recipes/e2e_cpu/split_spoken_ids.py', src + '/fid2qid_train.csv', '--squad-file', std.extVar('SQUAD_TRAIN'),
                  '--train', maps + '/fid2qid_train.csv', '--held-out', maps + '/fid2qid_heldout.csv', '--audio-from', src],
        outputs: [maps + '/fid2qid_train.csv', maps + '/fid2qid_heldout.csv'],
      },
      transcribe: {
        job: { type: 'transcribe', folder: src, output: transcripts, recognizer: { type: 'pocketsphinx' },
               squad: data + '/squad/dev-v1.1.json', workers: 2 },
        outputs: [transcripts],
      },
      study: {
        needs: ['bidaf', 'e2e', 'e2e_text', 'transcribe'],
        job: { type: 'compare', study: 'recipes/squad_src_paper/study.jsonnet', output: out + '/study' },
        inputs: ['recipes/squad_src_paper/study.jsonnet'],
        outputs: [out + '/study/results.json'],
      },
      // writes committed files (results.json, the README's tables): only when named
      report: {
        optional: true,
        needs: ['study'],
        job: { type: 'report', results: out + '/study/results.json', recipe: 'recipes/squad_src_paper' },
        outputs: ['recipes/squad_src_paper/results.json', 'recipes/squad_src_paper/pairs.tar.xz'],
      },
      check_speech: {
        command: ['allennlp', 'synthesize-speech', data + '/squad/dev-v1.1.json', check + '/src300', '--limit', '300',
                  '--voices', 'flite:kal16,flite:awb,flite:slt,espeak_ng:en-029', '--workers', '2'],
        outputs: [check + '/src300/fid2qid_dev.csv'],
        optional: true,
      },
      check_model: {
        command: ['python', 'tests/tiny_models.py', 'speecht5', check + '/tiny_speecht5'],
        outputs: [check + '/tiny_speecht5/config.json'],
        optional: true,
      },
      // the floor: the same model untrained, on the same questions
      check_floor: {
        needs: ['check_speech', 'check_model'],
        command: ['python', 'scripts/evaluate_untrained.py', 'recipes/squad_src_paper/e2e_speecht5_overfit.jsonnet',
                  check + '/src300/fid2qid_dev.csv', '--output', check + '/floor.json'],
        env: { SPEECHT5: check + '/tiny_speecht5', SRC_TRAIN: check + '/src300/fid2qid_dev.csv', SRC_SQUAD_FILE: '' },
        outputs: [check + '/floor.json'],
        optional: true,
      },
    },
    groups: { check: ['check_speech', 'check_model', 'check_floor', 'check_overfit'] },
  }
