#!/usr/bin/env bash
# Another seed of the 10-epoch twins (bidaf_cpu_scale_long10 and bidaf_cpu_scale_augmented_grow),
# trained from scratch under runs/seed$SEED/ with AllenNLP's three seeds and the reader's
# noise_seed changed, then the robust-training study on them. The two trainings run side by side,
# one thread each; a step whose output exists is skipped, and a stopped training is recovered.
#   bash scripts/robust_training_seed.sh 2      # from the repository root, after `make install`
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"
SEED=${1:?usage: robust_training_seed.sh SEED (an integer)}
[[ "$SEED" =~ ^[0-9]+$ ]] || { echo "robust_training_seed.sh: SEED must be an integer, got '$SEED'" >&2; exit 2; }
OUT=runs/seed$SEED
mkdir -p "$OUT" logs
source scripts/training_steps.sh
SEEDS="\"random_seed\": $SEED, \"numpy_seed\": $SEED, \"pytorch_seed\": $SEED"
CLEAN="{$SEEDS}"
# (dotted keys: a nested object would replace the config's whole dataset_reader)
NOISY="{$SEEDS, \"dataset_reader.noise_seed\": $((13 + SEED))}"
GROW="{$SEEDS, \"dataset_reader.noise_seed\": $((13 + SEED)), \"vocabulary.directory\": \"$OUT/bidaf_cpu_scale_augmented_long/vocabulary\"}"

train_to() {  # config, serialization folder, overrides, last epoch; a stopped run is recovered
  [ -f "$2/model_state_e$4_b0.th" ] && return
  if [ -f "$2/config.json" ]; then
    allennlp train "training_configs/$1.jsonnet" -s "$2" -o "$3" --recover
  else
    allennlp train "training_configs/$1.jsonnet" -s "$2" -o "$3"
  fi
}
clean() {
  train_to bidaf_cpu_scale_long10 "$OUT/bidaf_cpu_scale_long10" "$CLEAN" 10
  archive_epoch "$OUT/bidaf_cpu_scale_long10" 10
}
augmented() {
  train_to bidaf_cpu_scale_augmented_long "$OUT/bidaf_cpu_scale_augmented_long" "$NOISY" 8
  extend "$OUT/bidaf_cpu_scale_augmented_long" bidaf_cpu_scale_augmented_grow "$OUT/bidaf_cpu_scale_augmented_grow" 10 "$GROW" \
    --allow dataset_reader.noisy_copy_weights --allow vocabulary
}
OMP_NUM_THREADS=1 clean > "logs/seed${SEED}_clean.log" 2>&1 &
CLEAN_JOB=$!
OMP_NUM_THREADS=1 augmented > "logs/seed${SEED}_augmented.log" 2>&1 &
AUGMENTED_JOB=$!
wait "$CLEAN_JOB"
wait "$AUGMENTED_JOB"

# the first seed's study folder, when there, supplies the cached pairs of the other models and sets
STUDY=runs/studies/robust_training_seed$SEED
[ -d "$STUDY" ] || [ ! -d runs/studies/robust_training ] || cp -r runs/studies/robust_training "$STUDY"
BIDAF_LONG10_ARCHIVE=$OUT/bidaf_cpu_scale_long10/epoch10.tar.gz \
BIDAF_AUGMENTED_GROW_ARCHIVE=$OUT/bidaf_cpu_scale_augmented_grow/epoch10.tar.gz \
  allennlp compare training_configs/studies/robust_training.jsonnet -o "$STUDY" --workers 2
