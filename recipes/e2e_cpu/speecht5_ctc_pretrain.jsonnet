// Pretrains the small SpeechT5 speech encoder of training_configs/lib/speecht5_ctc.libsonnet from scratch with CTC
// over characters, on the CPU-scale training split (SQuAD v1.1 dev minus the XQuAD paragraphs)
// read aloud by the nine training voices of srcframework.speech.voices (flite kal16, awb, slt
// and six eSpeak NG accents; flite rms and the Festival voices are held out for testing): three
// readings, each by a group of three voices dealt over the questions, so each question is heard
// in three voices. The articles that the text configs hold out of the same split (share 0.1,
// seed 0: 7 articles, 1,072 questions, 3,216 utterances) validate (CTC loss and greedy CER/WER),
// so that no test set chooses the epoch and the text BiDAF that starts the e2e model never
// trained on them; training reads the other 8,308 questions in their three voices (about 24,924
// utterances), each utterance's speed, pitch and volume perturbed as it is read (sox), drawn from
// (noise_seed, epoch, file id). An "epoch" is a third of them; training goes on, pass after
// pass, until the held-out CER has not improved for 4 validations in a row, or 60 epochs (20
// passes) at most. At the end the `save_speecht5_ctc` callback writes
// SERIALIZATION_DIR/speecht5_ctc with the best epoch's weights, which the `speecht5` question
// encoder (e2e_speecht5_ctc.jsonnet) and the `speecht5_ctc` recognizer load.
// From the repository root, `allennlp recipe run e2e_cpu speech` makes the spoken folders
// (allennlp synthesize-speech with the voice sets training-1, -2, -3; split_spoken_ids.py), then
//   allennlp train recipes/e2e_cpu/speecht5_ctc_pretrain.jsonnet -s runs/speecht5_ctc
// A stopped run goes on with `allennlp train ... -s runs/speecht5_ctc --recover` from its last
// completed epoch (`allennlp recipe run e2e_cpu pretrain` does this): AllenNLP re-reads, without training on them,
// the batches of the completed epochs (the audio is read and perturbed again: a few minutes an
// epoch here), so the loader goes on at the third of the data where the run stopped,
// and `reader_epoch` makes every read draw the perturbation a straight run draws. The readers
// take the questions from the split file itself, so a question one voice said nothing for (left
// out of that voice's fid2qid) does not matter. The training lines are shuffled (by the script)
// because the data is read lazily, 1,600 utterances at a time: in file order, whole chunks would
// be one voice. Torch runs one thread (`torch_threads`): on the two cores here, shared with other
// jobs, one thread trains several times faster than two (docs/benchmarks.md); on a machine of its
// own, `OMP_NUM_THREADS=2 allennlp train ...` uses both cores. Other folders:
// -o '{"train_data_path": ..., "validation_data_path": ...}'.
local ctc = import '../../training_configs/lib/speecht5_ctc.libsonnet';

{
  // two recordings are decoded and perturbed at once (SoX spends most of an utterance's time
  // starting and piping): the same instances in the same order as one at a time, read about three
  // times faster (docs/benchmarks.md, "Reading in threads")
  dataset_reader: ctc.reader('runs/data/squad_dev_minus_xquad.json') + {
    audio_perturbation: ctc.audio_perturbation,
    noise_seed: 1,
    loading_threads: 2,
  },
  validation_dataset_reader: ctc.reader('runs/data/squad_dev_minus_xquad.json') + { loading_threads: 2 },
  train_data_path: 'runs/spoken_ctc/train9/fid2qid_train.csv',
  validation_data_path: 'runs/spoken_ctc/train9/fid2qid_heldout.csv',
  // the model has its own character vocabulary; contexts are not used
  vocabulary: { type: 'empty' },
  include_in_archive: ['training_record.json'],
  // the reader perturbs the audio (tied to the epoch), so the model's own perturbation is off
  model: ctc.model() + { speed_perturbation: null, volume_perturbation_db: null },
  // an "epoch" is a third of the about 24,924 utterances (519 batches of 16): the loader goes on where
  // it stopped, so every three epochs read every utterance once, with a validation after each third
  data_loader: ctc.data_loader(16) + { batches_per_epoch: 519 },
  validation_data_loader: ctc.data_loader(32),
  trainer: {
    // until the held-out CER stops improving: 4 validations (4/3 of a pass) without a better one
    // end the run; 60 epochs (20 passes, 31,140 updates of 16) are only a cap
    num_epochs: 60,
    patience: 4,
    grad_norm: 5.0,
    validation_metric: '-cer',
    optimizer: { type: 'adam', lr: 0.001, betas: [0.9, 0.98] },
    // noam: linear warm-up over 400 updates to a peak of 0.3 / sqrt(144 * 400) ≈ 1.25e-3, then
    // 1/sqrt(update): about 6.1e-4 after one pass, 1.9e-4 after ten. It needs no planned length (a
    // linear or cosine decay would have to name the last update, which the patience stop decides),
    // and it keeps decaying however long the run goes on. (AllenNLP's reduce_on_plateau fails with
    // this torch: stack notes.)
    learning_rate_scheduler: { type: 'noam', model_size: 144, warmup_steps: 400, factor: 0.3 },
    // the last two completed epochs (for --recover: 6 MB of weights and 13 MB of optimizer state each) and best.th
    checkpointer: { keep_most_recent_by_count: 2 },
    // the epoch best on the held-out articles' CER is archived (and its encoder folder written)
    callbacks: [
      { type: 'reader_epoch' },
      { type: 'declared_checkpoint', epoch: 'best' },
      { type: 'save_speecht5_ctc' },
      { type: 'tensorboard' },
      { type: 'torch_threads', threads: 1 },
    ],
  },
}
