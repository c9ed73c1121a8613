// The pilot of the second end-to-end study (docs/results/e2e_voices.md, "The pilot"): one lever on
// the recogniser, continuing the released speecht5-ctc-small (its weights, put back by the e2e_cpu
// recipe's `pretrain` step into runs/speecht5_ctc/best.th) for 1,038 updates of 16 (two "epochs"
// of 519 batches) at a constant learning rate of 2e-4 (a fresh Adam, no warm-up), one thread,
// noise seed 1, model seed 13, the development voices' reading of the held-out articles scored
// after each epoch; the last epoch is archived (the pilot's outcome is after its budget).
local base = import '../e2e_cpu/speecht5_ctc_pretrain.jsonnet';
local ctc = import '../../training_configs/lib/speecht5_ctc.libsonnet';

{
  // train: the training map (fid2qid) in runs/spoken_ctc/train9; perturbation: added to the
  // reader's speed/pitch/volume perturbation; encoder: added to the SpeechT5 config
  config(train, perturbation={}, encoder={}):: base + {
    dataset_reader+: { audio_perturbation+: perturbation },
    train_data_path: 'runs/spoken_ctc/train9/' + train,
    validation_dataset_reader: ctc.reader() + { loading_threads: 2 },
    validation_data_path: 'runs/spoken_voices/development/fid2qid_heldout.csv',
    model+: {
      encoder+: encoder,
      initializer: { regexes: [['.*', { type: 'pretrained', weights_file_path: 'runs/speecht5_ctc/best.th' }]] },
    },
    trainer+: {
      num_epochs: 2,
      patience:: null,
      optimizer: { type: 'adam', lr: 2e-4, betas: [0.9, 0.98] },
      learning_rate_scheduler:: null,
      callbacks: [
        { type: 'reader_epoch' },
        { type: 'declared_checkpoint', epoch: 'last' },
        { type: 'save_speecht5_ctc' },
        { type: 'torch_threads', threads: 1 },
      ],
    },
  },
}
