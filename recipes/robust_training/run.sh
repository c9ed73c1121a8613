#!/usr/bin/env bash
# The robust-training study (docs/results/robust_training.md, "Protocol"), from a fresh clone after
# `make install`, in one command from the repository root:
#   bash recipes/robust_training/run.sh            # every step: data, trainings, study
#   bash recipes/robust_training/run.sh data       # training split, noisy copies, XQuAD ASR set
#   bash recipes/robust_training/run.sh train      # the 6 BiDAF twins (3 seeds) and the MiniLM twins
#   bash recipes/robust_training/run.sh study      # allennlp compare on the archives
#   bash recipes/robust_training/run.sh report     # results.json, its tables, the cards' figures
#   bash recipes/robust_training/run.sh status     # what is done
#   bash recipes/robust_training/run.sh snapshot   # trainings and noise jobs under way -> models/snapshots
# A step whose output is complete is skipped, a stopped one resumed: noise jobs from their
# journals, a training with `allennlp train --recover` (noise is drawn by epoch, so a resumed run
# trains on what a straight run trains on).
# JOBS (default 2) trainings side by side, THREADS (default 1) torch threads each; WORKERS (default 2) noise workers;
# SEEDS (default "1 2 3"); WITH_MINILM (default 1): the MiniLM twins (seed 1).
set -euo pipefail
cd "$(dirname "$0")/../.."
source recipes/common.sh
RECIPE=recipes/robust_training
OUT=${ROBUST_OUT:-runs/robust_training}
WORKERS=${WORKERS:-2}
JOBS=${JOBS:-2}
THREADS=${THREADS:-1}
SEEDS=${SEEDS:-1 2 3}
SPLIT=runs/data/squad_dev_minus_xquad.json
NOISY=${NOISY_TRAIN:-runs/noisy}
# the configs and the study read these
export NOISY_TRAIN=$NOISY NOISY_XQUAD=$NOISY ROBUST_OUT=$OUT ROBUST_SEEDS=${SEEDS// /,} WITH_MINILM=${WITH_MINILM:-1}
mkdir -p "$OUT/logs" "$NOISY" runs/data

step_data() {
  [ -f "$SPLIT" ] || python scripts/make_training_split.py --output "$SPLIT" \
    --train runs/data/train_articles.json --validation runs/data/validation_articles.json
  # noisy copies of all 9,380 questions of the split (the readers leave the held-out articles out)
  for name in keyboard misspelling back_translation asr; do
    [ -f "$NOISY/train_$name.json" ] || restore_snapshot "$NOISY/train_$name.json"
  done
  for name in keyboard misspelling back_translation; do
    [ -f "$NOISY/train_$name.json" ] || allennlp noise "$SPLIT" "$NOISY/train_$name.json" --noise "$name" --workers "$WORKERS"
  done
  # ASR: flite kal16, awb, slt -> pocketsphinx `fast` (allennlp list-noise asr-fast-3voices)
  [ -f "$NOISY/train_asr.json" ] || allennlp noise "$SPLIT" "$NOISY/train_asr.json" --noise asr-fast-3voices --workers "$WORKERS"
  # the spoken test set: XQuAD-en read by flite rms (a voice no training copy used), pocketsphinx default
  [ -f "$NOISY/xquad_asr_rms.json" ] || allennlp noise "$DATA/xquad/xquad.en.json" "$NOISY/xquad_asr_rms.json" --noise asr-heldout-voice --workers "$WORKERS"
}

card_of() {  # config name -> the id of its model card (seed 1 of each model is installed under it)
  case $1 in bidaf_clean) echo bidaf-clean ;; bidaf_augmented) echo bidaf-noise-augmented ;;
    minilm_clean) echo minilm-qa-clean ;; minilm_augmented) echo minilm-qa-noise-augmented ;; esac
}

train_one() {  # config name, seed: trains (or resumes) runs/robust_training/<name>_s<seed>
  local name=$1 seed=$2 folder="$OUT/$1_s$2"
  if finished "$folder"; then
    if [ "$seed" = 1 ]; then install_model "$(card_of "$name")" "$folder/model.tar.gz"; fi
    return 0
  fi
  restore_snapshot "$folder"
  local mode=(-f)
  [ -f "$folder/config.json" ] && [ -n "$(epochs_done "$folder")" ] && mode=(--recover)
  echo "$(date '+%F %T') $name seed $seed: ${mode[0]} (epochs done: $(epochs_done "$folder"))"
  SEED=$seed OMP_NUM_THREADS=$THREADS MKL_NUM_THREADS=$THREADS allennlp train "$RECIPE/$name.jsonnet" -s "$folder" "${mode[@]}" \
    >>"$OUT/logs/$1_s$2.log" 2>&1 || { echo "$name seed $seed failed: see $OUT/logs/$1_s$2.log"; return 1; }
  echo "$(date '+%F %T') $name seed $seed: done"
  # seed 1 of each model goes into the models folder, under its model card's id
  if [ "$seed" = 1 ]; then install_model "$(card_of "$name")" "$folder/model.tar.gz"; fi
}

step_train() {
  local queue=()
  for seed in $SEEDS; do queue+=("bidaf_clean $seed" "bidaf_augmented $seed"); done
  [ "$WITH_MINILM" = 1 ] && queue+=("minilm_clean 1" "minilm_augmented 1")
  printf '%s\n' "${queue[@]}" | xargs -P "$JOBS" -L 1 bash "$0" train-one
}

step_study() {
  allennlp compare "$RECIPE/study.jsonnet" -o "$OUT/study" --workers "$WORKERS"
}

step_status() {
  local runs=() seed folder
  for seed in $SEEDS; do runs+=("$OUT/bidaf_clean_s$seed" "$OUT/bidaf_augmented_s$seed"); done
  if [ "$WITH_MINILM" = 1 ]; then runs+=("$OUT/minilm_clean_s1" "$OUT/minilm_augmented_s1"); fi
  progress "${runs[@]}"
  summary "$SPLIT" "$NOISY"/train_{keyboard,misspelling,back_translation,asr}.json "$NOISY/xquad_asr_rms.json" \
    "${runs[@]/%//model.tar.gz}" "$OUT/study/results.json" "$RECIPE/results.json"
}

step_snapshot() {  # what is under way, into models/snapshots (commit it before the machine goes)
  local runs=() seed
  for seed in $SEEDS; do runs+=("$OUT/bidaf_clean_s$seed" "$OUT/bidaf_augmented_s$seed"); done
  snapshot_under_way "${runs[@]}" "$NOISY"/train_{keyboard,misspelling,back_translation,asr}.json "$NOISY/xquad_asr_rms.json"
}

case "${1:-all}" in
  data) step_data ;;
  snapshot) step_snapshot ;;
  train) step_train ;;
  train-one) train_one "$2" "$3" ;;
  study) step_study ;;
  report) report "$OUT/study/results.json" "$RECIPE" ;;
  status) step_status ;;
  all)
    step_data
    step_train
    step_study
    report "$OUT/study/results.json" "$RECIPE"
    step_status
    ;;
  *) echo "usage: $0 [all|data|train|study|report|status|snapshot]" >&2; exit 2 ;;
esac
