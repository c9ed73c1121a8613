#!/usr/bin/env bash
# End to end on a CPU (recipes/e2e_cpu/README.md): a small SpeechT5 pretrained here with CTC, the
# end-to-end model on it, and the study against the cascades; from a fresh clone after
# `make install`, in one command from the repository root:
#   bash recipes/e2e_cpu/run.sh               # every step below, in order
#   bash recipes/e2e_cpu/run.sh data          # the CPU-scale training split
#   bash recipes/e2e_cpu/run.sh speech        # the split read by the 9 training voices (3 a question); the id maps;
#                                             # spoken XQuAD by the training voices and by the 4 held-out voices
#   bash recipes/e2e_cpu/run.sh pretrain      # the CTC SpeechT5 (runs/speecht5_ctc)
#   bash recipes/e2e_cpu/run.sh lm            # a word trigram LM of the training questions; its beam decoder's
#                                             # weights chosen by WER on the held-out articles' recordings
#   bash recipes/e2e_cpu/run.sh text          # the text BiDAF the e2e model starts from (the robust-training recipe's clean twin, seed 1)
#   bash recipes/e2e_cpu/run.sh e2e           # the end-to-end model, each seed: encoder frozen, then the whole model
#   bash recipes/e2e_cpu/run.sh transcribe    # spoken XQuAD by pocketsphinx (default) and by the CTC SpeechT5 (greedy; with the LM)
#   bash recipes/e2e_cpu/run.sh study         # allennlp compare
#   bash recipes/e2e_cpu/run.sh report        # results.json and the README table from the study
#   bash recipes/e2e_cpu/run.sh status        # what is done
#   bash recipes/e2e_cpu/run.sh snapshot      # the trainings under way -> models/snapshots (a training restores its snapshot when it starts)
# A step whose output is complete is skipped; synthesis and transcription resume from what they
# wrote, a training from its last epoch, the study from its cached pairs. Each model goes into the
# models folder under its card id (speecht5-ctc-small, bidaf-clean, e2e-speecht5-ctc), the id the
# study names it by (the end-to-end model's seed 1). WORKERS (default 2) synthesis, transcription
# and study workers; E2E_SEEDS (default 1,2) the end-to-end model's seeds.
set -euo pipefail
cd "$(dirname "$0")/../.."
source recipes/common.sh
RECIPE=recipes/e2e_cpu
OUT=runs/e2e_cpu
WORKERS=${WORKERS:-2}
SPLIT=runs/data/squad_dev_minus_xquad.json
TRAIN_ARTICLES=runs/data/train_articles.json
SPOKEN=runs/spoken_ctc
TRAIN9=$SPOKEN/train9
SEEN=$SPOKEN/xquad_seen
HELD_OUT=$SPOKEN/xquad_heldout
PRETRAIN=runs/speecht5_ctc
LM=$OUT/questions_3gram.arpa
TUNING=$OUT/lm_decoder.json
E2E=runs/e2e_speecht5_ctc
E2E_SEEDS=${E2E_SEEDS:-1,2}
CLEAN=runs/robust_training/bidaf_clean_s1
TEXT=${E2E_TEXT_INIT_RUN:-$CLEAN}

step_data() {
  need "$DATA/squad/dev-v1.1.json" "SHARED_DATA must hold squad/dev-v1.1.json and xquad/xquad.en.json"
  if [ -f "$SPLIT" ]; then say "skip $SPLIT: made"; return 0; fi
  mkdir -p runs/data
  python scripts/make_training_split.py --output "$SPLIT" \
    --train "$TRAIN_ARTICLES" --validation runs/data/validation_articles.json
}

synthesize() {  # SQuAD file, folder, voices (or a voice set), split, seed: one synthesis job, skipped once its map exists
  local squad=$1 folder=$2 voices=$3 split=$4 seed=$5
  if [ -f "$folder/fid2qid_$split.csv" ]; then say "skip $folder ($split): spoken"; return 0; fi
  say "synthesize $folder ($split, $voices)"
  allennlp synthesize-speech "$squad" "$folder" --voices "$voices" --split "$split" --seed "$seed" \
    --audio-format flac --workers "$WORKERS"
}

split_ids() {  # training map, [options]: the training and held-out maps of the three readings
  local train=$1
  shift
  if [ -f "$train" ] && [ -f "$TRAIN9/fid2qid_heldout.csv" ]; then say "skip $train: split"; return 0; fi
  python "$RECIPE/split_spoken_ids.py" "$TRAIN9"/fid2qid_{one,two,three}.csv --squad-file "$SPLIT" \
    --train "$train" --held-out "$TRAIN9/fid2qid_heldout.csv" "$@"
}

step_speech() {
  need "$SPLIT" "run the data step first"
  # three readings of the training split: each by one group of three training voices
  # (srcframework.speech.voices.TRAINING_VOICE_GROUPS) dealt over the questions, so each question is
  # heard in three different voices of the nine
  local i split
  for i in 1 2 3; do
    split=$(echo "one two three" | cut -d" " -f$i)
    synthesize "$SPLIT" "$TRAIN9" "training-$i" "$split" "$i"
  done
  # the articles the text configs hold out (share 0.1, seed 0) validate, so the text BiDAF that starts
  # the e2e model never trained on them
  split_ids "$TRAIN9/fid2qid_train.csv"
  # spoken XQuAD: the nine training voices dealt over the questions, and the four held-out voices
  # (flite rms; Festival, an engine no training voice uses) dealt over them
  synthesize "$DATA/xquad/xquad.en.json" "$SEEN" training dev 0
  synthesize "$DATA/xquad/xquad.en.json" "$HELD_OUT" held-out dev 0
}

step_pretrain() {
  need "$TRAIN9/fid2qid_train.csv" "run the speech step first"
  train "$RECIPE/speecht5_ctc_pretrain.jsonnet" "$PRETRAIN"
  install_model speecht5-ctc-small "$PRETRAIN/model.tar.gz"
}

step_lm() {
  need "$PRETRAIN/speecht5_ctc" "run the pretrain step first"
  mkdir -p "$OUT"
  # the 8,308 training questions only: the held-out articles choose the decoder's weights, XQuAD nothing
  if [ -f "$LM" ]; then say "skip $LM: built"; else allennlp word-lm "$TRAIN_ARTICLES" "$LM"; fi
  if [ -f "$TUNING" ]; then say "skip $TUNING: tuned"; return 0; fi
  say "tune the LM decoder on 600 recordings of the held-out articles"
  allennlp tune-ctc-decoder "$TRAIN9" "$TUNING" --model "$PRETRAIN/speecht5_ctc" --language-model "$LM" \
    --split heldout --squad "$SPLIT" --limit 600
}

step_text() {
  if [ "$TEXT" != "$CLEAN" ]; then
    need_finished "$TEXT" "E2E_TEXT_INIT_RUN names a run that this recipe does not make"
    say "E2E_TEXT_INIT_RUN=$TEXT: the e2e model starts from it, but the study's text model is the card bidaf-clean ($CLEAN)"
    return 0
  fi
  if ! finished "$TEXT"; then
    if pgrep -f -- "-s $TEXT" >/dev/null; then say "$TEXT is training (the robust-training recipe?): run this step when it is done"; return 1; fi
    bash recipes/robust_training/run.sh train-one bidaf_clean 1
  fi
  install_model bidaf-clean "$TEXT/model.tar.gz"
}

step_e2e() {
  need "$PRETRAIN/speecht5_ctc" "run the pretrain step first"
  need_finished "$TEXT" "run the text step first"
  # each stage until its validation F1 on the held-out articles stops improving, for each seed
  local seed
  for seed in ${E2E_SEEDS//,/ }; do
    SEED=$seed train "$RECIPE/e2e_speecht5_ctc.jsonnet" "${E2E}_s$seed"
    SEED=$seed E2E_FROZEN_RUN="${E2E}_s$seed" train "$RECIPE/e2e_speecht5_ctc_finetune.jsonnet" "${E2E}_finetune_s$seed"
  done
  # the first seed goes into the models folder under the card's id
  install_model e2e-speecht5-ctc "${E2E}_finetune_s${E2E_SEEDS%%,*}/model.tar.gz"
}

transcribe() {  # folder, output name, recognizer
  local out=$1/transcripts_$2.json
  if [ -f "$out" ]; then say "skip $out: transcribed"; return 0; fi
  say "transcribe $1 ($2)"
  allennlp transcribe "$1" "$out" --recognizer "$3" --workers "$WORKERS"
}

step_transcribe() {
  need "$TUNING" "run the lm step first"
  local folder
  for folder in "$SEEN" "$HELD_OUT"; do
    transcribe "$folder" pocketsphinx '{"type": "pocketsphinx"}'
    transcribe "$folder" speecht5_ctc "{\"type\": \"speecht5_ctc\", \"model_name\": \"$PRETRAIN/speecht5_ctc\"}"
    transcribe "$folder" speecht5_ctc_lm "$(python -c 'import json, sys
print(json.dumps({"type": "speecht5_ctc", "model_name": sys.argv[2], "decoder": json.load(open(sys.argv[1]))["decoder"]}))' \
      "$TUNING" "$PRETRAIN/speecht5_ctc")"
  done
}

step_study() {
  need "$(installed bidaf-clean)" "run the text step first"
  local seed
  for seed in ${E2E_SEEDS//,/ }; do need_finished "${E2E}_finetune_s$seed" "run the e2e step first"; done
  need "$HELD_OUT/transcripts_speecht5_ctc_lm.json" "run the transcribe step first"
  say "study -> $OUT/study"
  allennlp compare "$RECIPE/study.jsonnet" -o "$OUT/study" --workers "$WORKERS"
}

step_status() {
  local seed runs=() folders=("$PRETRAIN" "$TEXT")
  for seed in ${E2E_SEEDS//,/ }; do
    runs+=("${E2E}_s$seed/model.tar.gz" "${E2E}_finetune_s$seed/model.tar.gz")
    folders+=("${E2E}_s$seed" "${E2E}_finetune_s$seed")
  done
  progress "${folders[@]}"
  summary "$SPLIT" "$TRAIN9/fid2qid_train.csv" "$SEEN/fid2qid_dev.csv" \
    "$HELD_OUT/fid2qid_dev.csv" "$PRETRAIN/model.tar.gz" "$LM" "$TUNING" "$TEXT/model.tar.gz" "${runs[@]}" \
    "$(installed speecht5-ctc-small)" "$(installed bidaf-clean)" "$(installed e2e-speecht5-ctc)" \
    "$SPOKEN"/xquad_{seen,heldout}/transcripts_{pocketsphinx,speecht5_ctc,speecht5_ctc_lm}.json "$OUT/study/results.json" "$RECIPE/results.json"
}

step_snapshot() {  # the trainings under way, into models/snapshots (commit them before the machine goes)
  local seed folders=("$PRETRAIN")
  for seed in ${E2E_SEEDS//,/ }; do folders+=("${E2E}_s$seed" "${E2E}_finetune_s$seed"); done
  snapshot_under_way "${folders[@]}"
}

case "${1:-all}" in
  data) step_data ;;
  snapshot) step_snapshot ;;
  speech) step_speech ;;
  pretrain) step_pretrain ;;
  lm) step_lm ;;
  text) step_text ;;
  e2e) step_e2e ;;
  transcribe) step_transcribe ;;
  study) step_study ;;
  report) report "$OUT/study/results.json" "$RECIPE" ;;
  status) step_status ;;
  all)
    step_data
    step_speech
    step_pretrain
    step_lm
    step_text
    step_e2e
    step_transcribe
    step_study
    report "$OUT/study/results.json" "$RECIPE"
    step_status
    ;;
  *) echo "usage: $0 [all|data|speech|pretrain|lm|text|e2e|transcribe|study|report|status|snapshot]" >&2; exit 2 ;;
esac
