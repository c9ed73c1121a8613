// Pretrains the small SpeechT5 speech encoder of lib/speecht5_ctc.libsonnet from scratch with CTC
// over characters, on the CPU-scale training split (SQuAD v1.1 dev minus the XQuAD paragraphs,
// 9,380 questions) read aloud by three flite voices (kal16, awb, slt: 28,140 utterances an
// epoch), validated on spoken XQuAD-en read by the same voices (1,190 utterances, dealt over the
// voices): CTC loss and greedy CER/WER. At the end the `save_speecht5_ctc` callback writes
// SERIALIZATION_DIR/speecht5_ctc, which the `speecht5` question encoder (e2e_speecht5_ctc.jsonnet)
// and the `speecht5_ctc` recognizer load. From the repository root:
//   python scripts/make_training_split.py --output runs/data/squad_dev_minus_xquad.json
//   for voice in kal16 awb slt; do   # one split per voice, in one folder (file ids KAL000001, ...)
//     allennlp synthesize-speech runs/data/squad_dev_minus_xquad.json runs/spoken_ctc/train3 \
//         --voices flite:$voice --split ${voice//[0-9]/} --workers 2
//   done
//   cat runs/spoken_ctc/train3/fid2qid_{kal,awb,slt}.csv | shuf --random-source=<(yes) \
//       > runs/spoken_ctc/train3/fid2qid_train.csv   # voices mixed (a fixed shuffle)
//   allennlp synthesize-speech ../shared/data/xquad/xquad.en.json runs/spoken_ctc/xquad3 \
//       --voices flite:kal16,flite:awb,flite:slt --workers 2
//   allennlp train training_configs/speecht5_ctc_pretrain.jsonnet -s runs/speecht5_ctc
// The training reader takes the questions from the split file itself, so a question one voice
// said nothing for (left out of that voice's fid2qid) does not matter. The lines are shuffled
// because the data is read lazily, 1,600 utterances at a time: in file order, whole chunks would
// be one voice. Other folders:
// -o '{"train_data_path": ..., "validation_data_path": ...}'.
local ctc = import 'lib/speecht5_ctc.libsonnet';

{
  dataset_reader: ctc.reader('runs/data/squad_dev_minus_xquad.json'),
  validation_dataset_reader: ctc.reader(),
  train_data_path: 'runs/spoken_ctc/train3/fid2qid_train.csv',
  validation_data_path: 'runs/spoken_ctc/xquad3/fid2qid_dev.csv',
  // the model has its own character vocabulary; contexts are not used
  vocabulary: { type: 'empty' },
  model: ctc.model(),
  data_loader: ctc.data_loader(16),
  validation_data_loader: ctc.data_loader(32),
  trainer: {
    num_epochs: 15,
    patience: 4,
    grad_norm: 5.0,
    validation_metric: '-cer',
    optimizer: { type: 'adam', lr: 0.001, betas: [0.9, 0.98] },
    // linear warm-up over 1,500 steps to a peak of 0.5 / sqrt(144 * 1500) ≈ 1.1e-3, then 1/sqrt(step)
    learning_rate_scheduler: { type: 'noam', model_size: 144, warmup_steps: 1500, factor: 0.5 },
    callbacks: [{ type: 'save_speecht5_ctc' }, { type: 'tensorboard' }],
  },
}
