// Pretrains the small SpeechT5 speech encoder of training_configs/lib/speecht5_ctc.libsonnet from scratch with CTC
// over characters, on the CPU-scale training split (SQuAD v1.1 dev minus the XQuAD paragraphs)
// read aloud by three flite voices (kal16, awb, slt). The split's last two articles (Force,
// French_and_Indian_War: 341 questions, 1,023 utterances) are held out for validation (CTC loss
// and greedy CER/WER), so that no test set chooses the epoch; training reads the other 9,039
// questions by the three voices (27,117 utterances, read once). At the end the `save_speecht5_ctc`
// callback writes SERIALIZATION_DIR/speecht5_ctc, which the `speecht5` question encoder
// (e2e_speecht5_ctc.jsonnet) and the `speecht5_ctc` recognizer load. From the repository root:
//   python scripts/make_training_split.py --output runs/data/squad_dev_minus_xquad.json
//   for voice in kal16 awb slt; do   # one split per voice, in one folder (file ids KAL000001, ...)
//     allennlp synthesize-speech runs/data/squad_dev_minus_xquad.json runs/spoken_ctc/train3 \
//         --voices flite:$voice --split ${voice//[0-9]/} --workers 2
//   done
//   python recipes/e2e_cpu/split_spoken_ids.py runs/spoken_ctc/train3/fid2qid_{kal,awb,slt}.csv \
//       --squad-file runs/data/squad_dev_minus_xquad.json --held-out-articles 2 \
//       --train runs/spoken_ctc/train3/fid2qid_train.csv --held-out runs/spoken_ctc/train3/fid2qid_heldout.csv
//   allennlp train recipes/e2e_cpu/speecht5_ctc_pretrain.jsonnet -s runs/speecht5_ctc
// The readers take the questions from the split file itself, so a question one voice said
// nothing for (left out of that voice's fid2qid) does not matter. The training lines are shuffled
// (by the script) because the data is read lazily, 1,600 utterances at a time: in file order,
// whole chunks would be one voice. Other folders:
// -o '{"train_data_path": ..., "validation_data_path": ...}'.
local ctc = import '../../training_configs/lib/speecht5_ctc.libsonnet';

{
  dataset_reader: ctc.reader('runs/data/squad_dev_minus_xquad.json'),
  validation_dataset_reader: ctc.reader('runs/data/squad_dev_minus_xquad.json'),
  train_data_path: 'runs/spoken_ctc/train3/fid2qid_train.csv',
  validation_data_path: 'runs/spoken_ctc/train3/fid2qid_heldout.csv',
  // the model has its own character vocabulary; contexts are not used
  vocabulary: { type: 'empty' },
  include_in_archive: ['training_record.json'],
  model: ctc.model(),
  // an "epoch" is a third of the 27,117 utterances (565 batches of 16): the loader goes on where
  // it stopped, so three epochs read every utterance once, with a validation after each third
  data_loader: ctc.data_loader(16) + { batches_per_epoch: 565 },
  validation_data_loader: ctc.data_loader(32),
  trainer: {
    // 1,695 updates of 16 utterances in all (one pass): what two shared CPU cores could give it here
    num_epochs: 3,
    grad_norm: 5.0,
    validation_metric: '-cer',
    optimizer: { type: 'adam', lr: 0.001, betas: [0.9, 0.98] },
    // linear warm-up over 400 steps to a peak of 0.3 / sqrt(144 * 400) ≈ 1.25e-3, then 1/sqrt(step)
    // (6.1e-4 at the last step)
    learning_rate_scheduler: { type: 'noam', model_size: 144, warmup_steps: 400, factor: 0.3 },
    // the epoch best on the held-out articles' CER is archived (and its encoder folder written)
    callbacks: [{ type: 'declared_checkpoint', epoch: 'best' }, { type: 'save_speecht5_ctc' }, { type: 'tensorboard' }],
  },
}
