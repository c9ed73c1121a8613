# Training steps shared by the robust-training scripts; sourced from the repository root.
# Each step is skipped when its output exists.

archive_epoch() {  # serialization folder, epoch: FOLDER/epochN.tar.gz
  [ -f "$1/epoch$2.tar.gz" ] || python scripts/archive_checkpoint.py "$1" --epoch "$2" --output "$1/epoch$2.tar.gz"
}

# A finished run trained on to a later epoch (optimizer state kept: scripts/extend_run.py, then
# `allennlp train --recover`, which also picks up a stopped continuation), then archived at that epoch.
extend() {  # finished run, config name, folder, last epoch, overrides ('' for none), extend_run options
  if [ ! -f "$3/model_state_e$4_b0.th" ]; then
    [ -f "$3/config.json" ] || python scripts/extend_run.py "$1" "training_configs/$2.jsonnet" "$3" -o "$5" "${@:6}"
    allennlp train "training_configs/$2.jsonnet" -s "$3" -o "$5" --recover
  fi
  archive_epoch "$3" "$4"
}
