// End-to-end spoken-question QA with the small SpeechT5 pretrained here
// (speecht5_ctc_pretrain.jsonnet), first stage: its speech encoder, frozen, encodes the question
// audio and a trained projection maps it to the span head's width; the BiDAF context encoder
// (GloVe 50d + character CNN + BiLSTM) and the shared `bi_attention` head start from the CPU-scale
// text BiDAF (the last epoch of the robust-training recipe's clean BiDAF, seed 1, trained on the
// same questions typed; its vocabulary too), so that the question side is what this training has
// to learn. Its weights and vocabulary are those of the released archive bidaf-clean, unpacked into
// runs/e2e_cpu/text_bidaf by the recipe's `text_bidaf` step (text_bidaf_weights.py here).
// It trains on the spoken CPU-scale training split: each question read by three of the nine
// training voices (`allennlp recipe run e2e_cpu speech`), an "epoch" a third of those 24,924 utterances
// (416 batches of 20; the loader goes on where it stopped, so consecutive epochs hear other
// voices), each utterance's speed, pitch and volume perturbed as it is read, drawn from
// (noise_seed, epoch, file id) (`reader_epoch` keeps that true across --recover). It validates on
// the held-out articles of that split (the articles the text configs hold out, so the text BiDAF
// never trained on them), so no test set chooses anything, and trains until the validation F1 has
// not improved for 3 epochs (one pass), at most 15; the archive holds the best epoch on that
// validation. e2e_speecht5_ctc_finetune.jsonnet then fine-tunes the whole model from it. From the
// repository root, after the pretraining (`allennlp recipe run e2e_cpu e2e` runs the first stage
// for each seed recipe.jsonnet declares):
//   SEED=1 allennlp train recipes/e2e_cpu/e2e_speecht5_ctc.jsonnet -s runs/e2e_speecht5_ctc_s1
// SEED (default 1) seeds the run's random, numpy and torch generators and its perturbation draws.
// The encoder folder is SERIALIZATION_DIR/speecht5_ctc of the pretraining; another one:
// -o '{"model.question_encoder.model_name": "FOLDER"}'.
local e2e = import '../../training_configs/lib/e2e.libsonnet';
local bidaf = import '../../training_configs/lib/bidaf.libsonnet';
local init_run = 'runs/e2e_cpu/text_bidaf';
local init_weights = init_run + '/weights.th';
local split = 'runs/data/squad_dev_minus_xquad.json';
local seed = std.parseInt(std.extVar('SEED'));

{
  random_seed: seed,
  numpy_seed: seed,
  pytorch_seed: seed,
  dataset_reader: e2e.reader(split, passage_length_limit=400, several_recordings=true) + {
    audio_perturbation: e2e.audio_perturbation,
    noise_seed: seed,
  },
  // the held-out questions, each in the three voices that read it, unperturbed
  validation_dataset_reader: e2e.reader(split, several_recordings=true),
  train_data_path: 'runs/spoken_ctc/train9/fid2qid_train.csv',
  validation_data_path: 'runs/spoken_ctc/train9/fid2qid_heldout.csv',
  include_in_archive: ['training_record.json'],
  // the text model's vocabulary, so that its embeddings and weights fit
  vocabulary: { type: 'from_files', directory: init_run + '/vocabulary' },
  model: e2e.model('runs/speecht5_ctc/speecht5_ctc', freeze=true) + {
    initializer: {
      regexes: [['context_encoder\\..*|span_head\\..*', { type: 'pretrained', weights_file_path: init_weights }]],
    },
  },
  data_loader: e2e.data_loader(20) + { max_instances_in_memory: 2000, batches_per_epoch: 416 },
  validation_data_loader: e2e.data_loader(40),
  trainer: bidaf.trainer(epochs=15, checkpoint='best') + {
    patience: 3,
    checkpointer: { keep_most_recent_by_count: 2 },
    // one torch thread: faster than two on cores shared with another job
    // (benchmarks/audio_encoder_step.py); OMP_NUM_THREADS overrides it
    callbacks+: [{ type: 'torch_threads', threads: 1 }],
  },
  // the folder this config initialises from, for recipe.jsonnet's `text_bidaf` step that writes it
  text_bidaf:: init_run,
}
